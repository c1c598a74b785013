"""Claims of the grid route (theory.grid_law): exact laws of samplers on non-Gaussian 1-D and 2-D posteriors,
each checked against simulation inside the run's Holm family."""

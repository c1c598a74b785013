"""Claims of the exact engine (theory.linear_gaussian) against simulation: every estimator x integrator."""

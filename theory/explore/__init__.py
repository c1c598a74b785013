"""The step-size / minibatch explorer page (``python -m theory.explore``)."""

"""Console scripts of the conductor side."""

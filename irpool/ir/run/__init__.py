"""Running: a Program (a net or one layer, prepared once) and one layer executed on the pooling core."""

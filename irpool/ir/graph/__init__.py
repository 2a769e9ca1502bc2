"""What OpenVINO's reader builds of a net: the graph walked back from its Results, the signatures an edge
needs of each layer, what one pass leaves the next."""

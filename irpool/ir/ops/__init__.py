"""What each op means: MaxPool/AvgPool attributes to a PoolSpec and the plugin's type rules, the pooling
family (adaptive pools, global reductions), negative pads, Consts and the shape subgraphs folded for them."""

"""Reading an IR file: a source opened safely, the stream of <layer>/<edge> elements, ids, dims, element
types and port maps as read_model reads them, the flat tables that keep a net in flat memory."""

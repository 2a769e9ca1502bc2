"""OpenVINO IR front end, by stage: read/ (a file as read_model reads it), graph/ (what its reader builds),
ops/ (what each op means), check/ (the checker and its rooms), shape/ (--shape), run/ (a Program, one layer on the
pooling core); explain.py and fix.py beside them. This package binds no names of its own: import from the module
that holds a thing (irpool.ir.check.passes.check, irpool.ir.run.program.Program)."""

"""Op definitions as data (JSON) and the IR structure schema (RELAX NG); installed as irpool.schemas."""

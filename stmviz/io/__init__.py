"""Files and formats, beside the core: atomic saves and bounded reads (:mod:`~stmviz.io.files`),
strict JSON decoding (:mod:`~stmviz.io.jsonio`) and the versioned JSON form of a trace
(:mod:`~stmviz.io.serialize`), with the mechanism a trace file names rebuilt from its spec.
The core's ``Trace.save`` / ``Trace.load`` call into it.
"""

from .serialize import load_trace, mechanism_from_spec, trace_from_json, trace_to_dict, trace_to_json

__all__ = ["load_trace", "mechanism_from_spec", "trace_from_json", "trace_to_dict", "trace_to_json"]

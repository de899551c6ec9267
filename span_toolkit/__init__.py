"""SPAN in inspect_ai (the optional extra ``span-toolkit[inspect]``): the task ``span_toolkit/span``, the
scripted agents as model providers ``span/baseline``, ``span/reference`` and ``span/reference-code``, and the
project's sandbox as the sandbox environment ``span``.

This package is the outermost layer (span_toolkit -> client -> server -> span): nothing else in the
project imports it. inspect_ai finds it through the ``inspect_ai`` entry point (:mod:`span_toolkit._registry`).
"""

"""The subcommands of ``span-client``, one module each: ``configure(parser)`` (arguments only) and
``run(args) -> exit status``; the work itself lives in the modules they call. Each command's one-line help
is said here, once (the top-level list and the command's own --help both show it)."""

COMMANDS = {  # name: (module, help)
    "generate": ("span_toolkit.client.commands.generate",
                 "generate SPAN instances (JSON Lines) for one date, a list or a range"),
    "eval": ("span_toolkit.client.commands.eval",
             "ask a model every instance (unaided, --with-tools or --time-agent); judge; write a run folder"),
    "judge": ("span_toolkit.client.commands.judge", "re-judge an existing run folder without asking the model again"),
    "report": ("span_toolkit.client.commands.report",
               "report accuracy breakdowns, confidence intervals, significance tests and figures for runs"),
    "tools": ("span_toolkit.client.commands.tools", "list the MCP server's tools or call one (no LLM involved)"),
    "demo": ("span_toolkit.client.commands.demo",
             "offline end-to-end with the scripted agents: generate, evaluate, report (no API key)"),
    "export": ("span_toolkit.client.commands.export",
               "write a run folder as an inspect_ai log (open it with `inspect view`)"),
    "fragmentation": ("span_toolkit.client.commands.fragmentation",
                      "the date fragmentation ratio F of tokenizers (Date Fragments paper, Tables 2 and 4), offline"),
}

# The base install (`pip install span-toolkit`) is the core and the MCP server; these commands need the
# client's extra (`span-toolkit[eval]`: provider SDKs, statistics, figures, token counts). generate and tools
# work without it.
EVAL_EXTRA_MODULES = ("anthropic", "openai", "numpy", "matplotlib", "rich", "tiktoken")
NEEDS_EVAL_EXTRA = frozenset({"eval", "judge", "report", "demo", "export"})

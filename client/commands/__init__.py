"""The subcommands of ``span-client``, one module each: ``configure(parser)`` (arguments only) and
``run(args) -> exit status``; the work itself lives in the modules they call. Each command's one-line help
is said here, once (the top-level list and the command's own --help both show it)."""

COMMANDS = {  # name: (module, help)
    "generate": ("client.commands.generate",
                 "generate SPAN instances (JSON Lines) for one date, a list or a range"),
    "eval": ("client.commands.eval",
             "ask a model every instance (unaided, --with-tools or --time-agent); judge; write a run folder"),
    "judge": ("client.commands.judge", "re-judge an existing run folder without asking the model again"),
    "report": ("client.commands.report",
               "report accuracy breakdowns, confidence intervals, significance tests and figures for runs"),
    "tools": ("client.commands.tools", "list the MCP server's tools or call one (no LLM involved)"),
    "demo": ("client.commands.demo",
             "offline end-to-end with the scripted agents: generate, evaluate, report (no API key)"),
    "export": ("client.commands.export", "write a run folder as an inspect_ai log (open it with `inspect view`)"),
}

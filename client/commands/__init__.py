"""The subcommands of ``span-client``, one module each: ``HELP``, ``configure(parser)`` (arguments only) and
``run(args) -> exit status``. The work itself lives in the modules they call."""

COMMANDS = {
    "generate": "client.commands.generate",
    "eval": "client.commands.eval",
    "judge": "client.commands.judge",
    "report": "client.commands.report",
    "tools": "client.commands.tools",
    "demo": "client.commands.demo",
    "export": "client.commands.export",
}

"""The `hindsight` command line: `main` (flows.cli.main) and one `cmd_*` module per sub-command."""

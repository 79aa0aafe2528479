"""How stages run: workspace and params, the item engine (execution, items, stage), logs, shutdown, Prefect server."""

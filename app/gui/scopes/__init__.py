"""The scopes: stacked and XY plots, signal browser, units, measuring and exports."""

"""Kept runs, the Compare view and the Tuning panel."""

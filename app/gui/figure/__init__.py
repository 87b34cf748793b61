"""The stick figure, its animation export and the README screenshot."""

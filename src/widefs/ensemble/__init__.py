"""Class-specific ensemble feature selection (CEFS, Soares 2010)."""

from widefs.ensemble._class_specific import ClassSpecificEnsemble, subset_inclusiveness

__all__ = ["ClassSpecificEnsemble", "subset_inclusiveness"]

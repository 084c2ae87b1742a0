"""Privacy measures: hockey-stick and pointwise δ, ε-inversion, PLDs, the sdgs scan, the paper's
bounds."""

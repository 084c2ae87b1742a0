"""Privacy measures of two output laws: hockey-stick and pointwise δ, ε-inversion (CP Def 2, TR Def 2)
and privacy-loss distributions."""

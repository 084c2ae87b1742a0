"""The exact worst case of sampled strongly-safe k-anonymization (CP Thm 5, TR Thm 6): the sdgs scan
over group sizes, long-range segments, ball-arithmetic binomials, Chernoff tails, and the paper's
closed forms (d, d_safe, CP Thm 1's amplification)."""

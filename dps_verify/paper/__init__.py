"""Everything specific to Li, Qardaji & Su: proofs, claims, figures, walkthroughs."""

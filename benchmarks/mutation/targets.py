"""The certified core that the mutation run covers, and the tests that guard each module.

Each module is run against the test files that exercise it (a selection of the default test
run, so a mutant killed here is killed by the default run too).  The selection lists every file
that imports the module or calls it through a public function, plus the files written to kill
earlier survivors.
"""

from __future__ import annotations

#: repository path -> pytest arguments (test files relative to the repository, and any
#: ``--deselect`` of a slow test that does not exercise the module) run against its mutants.
TARGETS: dict[str, tuple[str, ...]] = {
    "dps_verify/core/numbers.py": (
        "tests/test_numbers.py",
        # runs every proof module (minutes); numbers.py's arithmetic is covered by the rest
        "--deselect",
        "tests/test_numbers.py::test_no_global_mpmath_state_after_running_every_proof_in_process",
        "tests/test_params_exact_log.py",
        "tests/test_trust_base_reference.py",
        "properties/test_numbers_properties.py",
        "properties/test_numbers_exact_log.py",
        "tests/test_numbers_reference.py",
        "tests/test_dyadic_fraction_reference.py",
    ),
    "dps_verify/measures/divergence.py": (
        "tests/test_least_exp_reference.py",
        "tests/test_trust_base_reference.py",
        "tests/test_validation.py",
        "tests/test_engine_trust.py",
        "tests/test_exact.py",
        "tests/test_api.py",
        "tests/test_divergence_reference.py",
    ),
    "dps_verify/verdict/screen.py": (
        "tests/test_trust_base_reference.py",
        "tests/test_screen_reference.py",
        "tests/test_screen_pairs_reference.py",
        "tests/test_exact_search_pairs_reference.py",
        "tests/test_verdict_exact_decisions.py",
        "tests/test_exact_search_recognise.py",
    ),
    "dps_verify/worstcase/sdgs.py": (
        # the fast reference files first: pytest -x stops at a mutant's first failing test, and
        # the grid's CPU-time limit fails a scan that no longer stops in seconds (a time-out of
        # the whole run costs minutes)
        "tests/test_sdgs_scan_grid_reference.py",
        "tests/test_sdgs_thresholds_reference.py",
        # the precision and size constants where they act (< 2 s)
        "tests/test_sdgs_documented_constants.py",
        # the helpers' contracts and the stop screens' margins (< 1 s)
        "tests/test_sdgs_contracts_reference.py",
        "tests/test_sdgs_walk_edges_reference.py",
        "tests/test_sdgs_domains_reference.py",
        "tests/test_sdgs_capped_reference.py",
        "tests/test_sdgs_edges_reference.py",
        "tests/test_sdgs_stops_and_notes_reference.py",
        "tests/test_sdgs_kl_lower_reference.py",
        "tests/test_sdgs_work_estimate_reference.py",
        "tests/test_sdgs_route_and_messages_reference.py",
        "tests/test_sdgs.py",
        "tests/test_long_range_ties.py",
        "tests/test_bounds.py",
        "properties/test_sdgs_reference.py",
        "tests/test_worstcase_extreme_parameters.py",
        "tests/test_trust_base_reference.py",
    ),
    "dps_verify/worstcase/long_range.py": (
        "tests/test_long_range_reference.py",
        "tests/test_trust_base_reference.py",
        "tests/test_long_range_ties.py",
        "tests/test_long_range_huge_epsilon.py",
        "tests/test_sdgs.py",
        # its call_limited tests bound CPU time (not wall time), so load cannot fail them
        "tests/test_worstcase_extreme_parameters.py",
    ),
    "dps_verify/worstcase/ball_binomial.py": (
        "tests/test_dyadic_fraction_reference.py",
        "tests/test_trust_base_reference.py",
        "tests/test_worstcase_ball_reference.py",
        "tests/test_long_range_reference.py",
        "tests/test_sdgs.py",
        "tests/test_worstcase_extreme_parameters.py",
    ),
    "dps_verify/inverse/pld_discrete.py": (
        # the fast reference files first: pytest -x stops at a mutant's first failing test
        "tests/test_inverse_documented_constants.py",
        "tests/test_pld_discrete_paths_reference.py",
        "tests/test_pld_discrete_schedule_reference.py",
        "tests/test_pld_discrete_error_terms_reference.py",
        "tests/test_pld_discrete_sample67_kills_reference.py",
        "tests/test_releases_work_budget.py",
        "tests/test_inverse_edges_reference.py",
        "tests/test_direct_delta_infinite_loss_reference.py",
        "tests/test_worstcase_ball_reference.py",
        "tests/test_pld_discrete_rigorous.py",
        "tests/test_releases_exact_reference.py",
        "tests/test_pld_sparse.py",
        "tests/test_pld_discrete_properties.py",
        "tests/test_pld_discrete.py",
        "tests/test_integer_params_reference.py",
    ),
    "dps_verify/inverse/pld_sparse.py": (
        # the PLD and times are validated before any work, each boundary both sides (< 1 s)
        "tests/test_pld_sparse_input_validation.py",
        # the clamps at 1 of balls within 2^-128 of 1 (about 1 s)
        "tests/test_pld_sparse_unit_clamps_reference.py",
        # arb_one_minus_power at tiny masses and near/at 1, against the exact T-fold delta
        "tests/test_direct_delta_infinite_loss_reference.py",
        "tests/test_sparse_composition_reference.py",
        # rtol is validated (finite, >= 0) before any work; rtol = 0 against the exact delta
        "tests/test_enclosure_rtol_param.py",
        "tests/test_pld_sparse.py",
        "tests/test_integer_params_reference.py",
    ),
    "dps_verify/inverse/releases.py": (
        # first: the worst case and the cheap bounds under a 3 s CPU limit per call (about 1 s),
        # so a mutant that loops or searches to n_limit fails in seconds instead of timing out
        "tests/test_releases_cpu_limits_reference.py",
        # the fast reference files next: pytest -x stops at a mutant's first failing test
        "tests/test_inverse_documented_constants.py",
        # each public function's domain, both sides of every boundary (about 1 s)
        "tests/test_releases_input_validation.py",
        # bookkeeping at its boundaries with fixed certified stand-ins: the scan's budgets and
        # ATOL tie, the tail start's tie, the mode label, the width note, 40 digits (< 1 s)
        "tests/test_releases_budget_and_ties_reference.py",
        "tests/test_releases_labels_reference.py",
        # the screened algorithm's comparisons at exact ties, with fixed screens (< 1 s)
        "tests/test_releases_screen_ties_reference.py",
        "tests/test_releases_screen_steps_reference.py",
        "tests/test_releases_cheap_bounds_reference.py",
        "tests/test_releases_enclosure_budget_reference.py",
        "tests/test_releases_paths_reference.py",
        "tests/test_releases_screen_reference.py",
        "tests/test_releases_work_budget.py",
        "tests/test_inverse_edges_reference.py",
        "tests/test_releases_exact_reference.py",
        "tests/test_pld_sparse.py",
        "tests/test_pld_releases.py",
        "tests/test_integer_params_reference.py",
    ),
    "dps_verify/verdict/exact_search.py": (
        # the integer screen's setup and the order of the exact decisions (about 5 s)
        "tests/test_exact_search_screen_setup_reference.py",
        # bookkeeping edges: workers and seconds, budget ties, exports (< 1 s)
        "tests/test_exact_search_edges_reference.py",
        "tests/test_exact_search_reference.py",
        "tests/test_exact_search_pairs_reference.py",
        "tests/test_exact_search_chunks_reference.py",
        "tests/test_exact_search_reporting_reference.py",
        "tests/test_exact_search_limits_reference.py",
        # shape_search refuses thresholds ks below 1 naming ks, and searches k = 1 (< 2 s)
        "tests/test_exact_search_ks_validation.py",
        "tests/test_verdict.py",
        "tests/test_verdict_exact_decisions.py",
        "tests/test_exact_search_recognise.py",
    ),
}

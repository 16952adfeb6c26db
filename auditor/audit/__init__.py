"""The audit: rule packs, the rule engine, waivers, baselines and the findings model."""

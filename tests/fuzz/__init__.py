"""The fuzz suite of issue 16: hypothesis over every input kind (snapshot, plan, access requests,
waivers, configuration, ``$filter`` and condition expressions, collected pages), each example run
through the command line in-process and held to the contract: exit code 0-3, no traceback, no
seeded secret in any output, bounded time and memory.

``make test`` runs it with a small fixed budget (hypothesis profile ``fuzz-quick``); ``make fuzz``
(``AUDITOR_FUZZ=1``) with 10,000 examples per test (profile ``fuzz``).
"""

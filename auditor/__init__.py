"""auditor: a policy and compliance audit engine for the cloud estate of the seed specification.

Data flows one way: sources (``api``, files) -> ``estate`` (snapshot and plan) -> engines (``expr``,
``access``, ``audit``) -> findings -> renderers (``report``). ``cli`` sits on top.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]

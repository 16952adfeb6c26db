"""Gating a repository of templates (issue 17): a generated infrastructure repository of 2,000
template files, gated end to end with ``auditor gate``, against ``checkov -d`` on its Terraform part.

The repository (made once per size and seed into ``benchmarks/.cache/``, deterministic) holds, by
file count: about 40% ARM templates with their parameters files (``azuredeploy.json`` +
``azuredeploy.parameters.json``: the real quickstarts of ``tests/data/real/`` with their names,
parameters and settings varied, and event-routing domain templates written in the same style),
about 20% Bicep-compiled JSON in both layouts (``main.json`` with resources as an array or with
``languageVersion: "2.0"`` symbolic names, a third with ``main.parameters.json``) and about 40%
Terraform folders (``main.tf``, ``variables.tf``, ``terraform.tfvars``) with
``azurerm_eventgrid_domain`` and ``azurerm_hdinsight_*_cluster`` resources beside the resource
groups, storage accounts, networks and vaults real repositories hold. Settings vary the way real
repositories do: TLS versions, public access and IP rules, local auth, encryption in transit and at
host, private networks, passwords as Key Vault references, ``securestring`` parameters, Terraform
variables or literals.

Measured, each a fresh process of the installed console script (start-up included), ``--runs``
times: ``auditor gate REPO -o json=...`` (goal: at most 20 s on 2 cores), ``auditor gate
REPO/terraform`` and ``checkov -d REPO/terraform --framework terraform --quiet --compact -o json
--skip-download`` (goal: auditor at least 10x faster), interleaved; once per run also ``auditor
gate REPO/terraform`` with ``AUDITOR_HCL_PARSER=python-hcl2`` (the Lark parse tree-sitter
replaced: the gain in the same run). checkov is installed on first use into the benchmark's own
virtualenv ``benchmarks/.cache/checkov-venv`` (not a project dependency); with ``--quick`` (200
files, one run) it runs only when already installed. Wall clock is quoted with the child's CPU
time (user + system, its own children included: the gate reads a repository's Terraform modules
in two processes, the worker's CPU counts): on a shared machine the CPU figures are the steadier
ones. Every child runs with Python's bytecode cache on (``PYTHONPYCACHEPREFIX`` in
``benchmarks/.cache/pycache``, ``PYTHONDONTWRITEBYTECODE`` unset), as an installed tool and
checkov's own packages run, after an untimed warm-up of each (a gate of the Terraform part,
checkov on one module). ``--phases`` adds the gate's CPU time by phase (reading Terraform and
its HCL parse, ARM templates and their expressions, the rule engine, the report), ``--profile N``
cProfile's top N.

    .venv/bin/python benchmarks/bench_iac.py [--files N] [--seed S] [--runs N] [--quick]
        [--no-checkov] [--checkov PATH] [--phases] [--profile N]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from random import Random
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CACHE, child_env

ROOT = Path(__file__).resolve().parent.parent
AUDITOR = ROOT / ".venv" / "bin" / "auditor"
CHECKOV_VENV = CACHE / "checkov-venv"
REAL = ROOT / "tests" / "data" / "real"
QUICKSTARTS = REAL / "fathym-it__azure-quickstart-templates"
BICEP_SAMPLE = (
    REAL / "Azure__bicep/src/Bicep.Core.Samples/Files/user_submitted/101/hdinsight-spark-linux"
)
GENERATOR_VERSION = 1
"""Bump when the generator changes: the cached trees are named by it."""

JUDGED = {"Microsoft.EventGrid/domains", "Microsoft.HDInsight/clusters", "azurerm_eventgrid_domain"}
"""The generated resources auditor judges (with every ``azurerm_hdinsight_*_cluster``)."""

GOAL_SECONDS = 20.0
GOAL_RATIO = 10.0

SCHEMA = "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#"
PARAMS_SCHEMA = "https://schema.management.azure.com/schemas/2019-04-01/deploymentParameters.json#"
SUBSCRIPTION = "00000000-0000-0000-0000-0000000000{:02d}"
AREAS = ["analytics", "data-platform", "eventing", "integration", "ml", "payments", "search", "iot"]
ENVS = ["dev", "test", "staging", "prod"]
REGIONS = ["westeurope", "northeurope", "uksouth", "eastus2", "swedencentral"]
WORDS = [
    "orders",
    "billing",
    "telemetry",
    "ingest",
    "clicks",
    "fraud",
    "catalog",
    "audit",
    "sensor",
]
CIDRS = [
    "10.0.0.0/16",
    "10.20.0.0/24",
    "203.0.113.0/24",
    "198.51.100.7",
    "192.0.2.0/8",
    "0.0.0.0/0",
    "2001:db8::/48",
]
CLUSTER_KINDS = {  # Terraform type suffix -> (component, version)
    "hadoop": ("hadoop", "3.1"),
    "spark": ("spark", "3.3"),
    "hbase": ("hbase", "2.4"),
    "kafka": ("kafka", "2.4"),
    "interactive_query": ("interactive_hive", "3.1"),
}


# -- the generator ---------------------------------------------------------------------------


class _Tree:
    """The repository being written: counts files by kind and resources by type."""

    def __init__(self, root: Path, rng: Random) -> None:
        self.root = root
        self.rng = rng
        self.files: Counter[str] = Counter()
        self.resources: Counter[str] = Counter()

    def write(self, kind: str, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self.files[kind] += 1

    def write_json(self, kind: str, rel: str, value: Any) -> None:
        indent = 2 if self.rng.random() < 0.7 else 4
        self.write(kind, rel, json.dumps(value, indent=indent) + "\n")


def _password(rng: Random) -> str:
    """A literal password: mostly strong, sometimes weak (as real repositories have both)."""
    if rng.random() < 0.25:
        return rng.choice(["password1", "Summer2024", "changeme", "P@ss1", "Hadoop123"])
    return f"{rng.choice(['Hdi', 'Evt', 'Clu', 'Adm'])}!{rng.randrange(10**6):06d}-{rng.choice('xyzqk')}Q"


def _vault_reference(rng: Random, area: str, env: str, secret: str) -> dict[str, Any]:
    sub = SUBSCRIPTION.format(rng.randrange(8))
    vault = f"/subscriptions/{sub}/resourceGroups/rg-secrets-{env}/providers/Microsoft.KeyVault/vaults/kv-{area}-{env}"
    return {"reference": {"keyVault": {"id": vault}, "secretName": secret}}


def _secret_value(rng: Random, area: str, env: str, secret: str) -> dict[str, Any]:
    """A parameters-file entry for a secret: a Key Vault reference or a literal value."""
    if rng.random() < 0.55:
        return _vault_reference(rng, area, env, secret)
    return {"value": _password(rng)}


def _load_quickstarts() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    out = []
    for folder in sorted(QUICKSTARTS.iterdir()):
        if (folder / "azuredeploy.json").is_file():
            template = json.loads((folder / "azuredeploy.json").read_text(encoding="utf-8"))
            params = json.loads(
                (folder / "azuredeploy.parameters.json").read_text(encoding="utf-8")
            )
            out.append((folder.name, template, params))
    if not out:
        raise SystemExit(f"no quickstart templates under {QUICKSTARTS}")
    return out


def _resources(template: dict[str, Any]) -> list[dict[str, Any]]:
    res = template["resources"]
    return list(res.values()) if isinstance(res, dict) else list(res)


def _vary_cluster(
    rng: Random, template: dict[str, Any], cluster: dict[str, Any], area: str, env: str
) -> None:
    """Vary one HDInsight cluster resource of a template in place: TLS, encryption, network,
    version, api-version, tags."""
    props = cluster.setdefault("properties", {})
    parameters = template.setdefault("parameters", {})
    tls = rng.random()
    if tls < 0.4:
        props["minSupportedTlsVersion"] = "1.2"
    elif tls < 0.55:
        props["minSupportedTlsVersion"] = rng.choice(["1.0", "1.1"])
    elif tls < 0.7:
        parameters["minTlsVersion"] = {
            "type": "string",
            "defaultValue": rng.choice(["1.2", "1.2", "1.0"]),
            "allowedValues": ["1.0", "1.1", "1.2"],
            "metadata": {"description": "The minimal supported TLS version."},
        }
        props["minSupportedTlsVersion"] = "[parameters('minTlsVersion')]"
    else:
        props.pop("minSupportedTlsVersion", None)
    transit = rng.random()
    if transit < 0.45:
        props["encryptionInTransitProperties"] = {"isEncryptionInTransitEnabled": True}
    elif transit < 0.55:
        props["encryptionInTransitProperties"] = {"isEncryptionInTransitEnabled": False}
    identity_id = (
        f"[resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', 'id-hdi-{env}')]"
    )
    if rng.random() < 0.35:
        props["diskEncryptionProperties"] = {
            "vaultUri": f"https://kv-{area}-{env}.vault.azure.net",
            "keyName": "hdi-cmk",
            "keyVersion": f"{rng.getrandbits(128):032x}",
            "msiResourceId": identity_id,
            "encryptionAtHost": rng.random() < 0.7,
        }
        cluster["identity"] = {"type": "UserAssigned", "userAssignedIdentities": {identity_id: {}}}
    if rng.random() < 0.4:
        props["networkProperties"] = {
            "resourceProviderConnection": rng.choice(["Outbound", "Outbound", "Inbound"]),
            "privateLink": rng.choice(["Enabled", "Disabled"]),
        }
    vnet_rg, vnet = f"rg-network-{env}", f"vnet-{area}-{env}"
    add_vnet = rng.random() < 0.4
    for role in props.get("computeProfile", {}).get("roles", []):
        if add_vnet and "virtualNetworkProfile" not in role:
            role["virtualNetworkProfile"] = {
                "id": f"[resourceId('{vnet_rg}', 'Microsoft.Network/virtualNetworks', '{vnet}')]",
                "subnet": f"[resourceId('{vnet_rg}', 'Microsoft.Network/virtualNetworks/subnets', '{vnet}', 'snet-hdi')]",
            }
    version = rng.choice(["4.0", "5.0", "5.1", "5.1"])
    if isinstance(props.get("clusterVersion"), str) and props["clusterVersion"].startswith("["):
        declared = parameters.get("clusterVersion")
        if isinstance(declared, dict):
            declared["defaultValue"] = version
    else:
        props["clusterVersion"] = version
    api = rng.random()
    if api < 0.3:
        cluster["apiVersion"] = "2021-06-01"
    elif api < 0.4:
        cluster["apiVersion"] = "2023-04-15-preview"
    cluster["tags"] = {
        "environment": env,
        "area": area,
        "costCenter": str(rng.randrange(1000, 9999)),
    }


def _fill_parameters(
    rng: Random, params: dict[str, Any], name: str, area: str, env: str, index: int
) -> dict[str, Any]:
    """A quickstart's parameters file with its GEN-/GET-PREREQ- placeholders given real-looking
    values (secrets as Key Vault references or literals)."""
    out = copy.deepcopy(params)
    for key, entry in list(out["parameters"].items()):
        value = entry.get("value", entry.get("reference"))
        if not isinstance(value, str):
            continue
        lower = key.lower()
        if value == "GEN-PASSWORD" or value == "GEN-KEYVAULT-PASSWORD-REFERENCE":
            out["parameters"][key] = _secret_value(rng, area, env, f"{lower}-{index}")
        elif key == "clusterName":
            out["parameters"][key] = {"value": name}
        elif value.startswith("GEN-"):
            if "user" in lower:
                entry["value"] = "sshuser" if "ssh" in lower else rng.choice(["admin", "hdiadmin"])
            else:
                entry["value"] = f"{lower[:10]}{index:04d}"
        elif value.startswith("GET-PREREQ-"):
            if lower.endswith("resourcegroup"):
                entry["value"] = f"rg-{area}-{env}"
            elif "storageaccount" in lower:
                entry["value"] = f"st{area.replace('-', '')[:8]}{env}{index:04d}"
            elif "subnet" in lower:
                entry["value"] = "snet-hdi"
            elif "virtualnetwork" in lower:
                entry["value"] = f"vnet-{area}-{env}"
            elif "sqlservername" in lower:
                entry["value"] = f"sql-{area}-{env}"
            else:
                entry["value"] = "sqladmin"
    if "clusterName" not in out["parameters"]:
        out["parameters"]["clusterName"] = {"value": name}
    if rng.random() < 0.2:
        out["parameters"]["location"] = {"value": rng.choice(REGIONS)}
    return out


def _domain_template(
    rng: Random, area: str, env: str, *, bicep: bool
) -> tuple[dict[str, Any], int, list[str]]:
    """An event-routing domain template as people write them (parameters for the settings they
    vary per environment, literals for the rest; sometimes topics, a copy loop, a private
    endpoint), the number of domains it deploys and its resources' symbolic names."""
    fmt = f"format('evgd-{{0}}-{{1}}', '{area}', uniqueString(resourceGroup().id))"
    name_default = (
        f"[{fmt}]" if bicep else f"[concat('evgd-{area}-', uniqueString(resourceGroup().id))]"
    )
    params: dict[str, Any] = {
        "domainName": {"type": "string", "defaultValue": name_default},
        "location": {"type": "string", "defaultValue": "[resourceGroup().location]"},
    }
    props: dict[str, Any] = {}
    schema = rng.random()
    if schema < 0.3:
        props["inputSchema"] = "CloudEventSchemaV1_0"
    elif schema < 0.4:
        props["inputSchema"] = "CustomEventSchema"
        if rng.random() < 0.8:
            props["inputSchemaMapping"] = {
                "inputSchemaMappingType": "Json",
                "properties": {
                    "id": {"sourceField": "eventId"},
                    "topic": {"sourceField": "topic"},
                    "eventTime": {"sourceField": "occurredAt"},
                    "eventType": {"defaultValue": f"{area.title()}.Event"},
                    "subject": {"sourceField": "subject"},
                    "dataVersion": {"defaultValue": "1.0"},
                },
            }
    elif schema < 0.7:
        props["inputSchema"] = "EventGridSchema"
    public = rng.random()
    if public < 0.35:
        params["publicNetworkAccess"] = {
            "type": "string",
            "defaultValue": rng.choice(["Enabled", "Disabled"]),
            "allowedValues": ["Enabled", "Disabled"],
        }
        props["publicNetworkAccess"] = "[parameters('publicNetworkAccess')]"
    elif public < 0.7:
        props["publicNetworkAccess"] = rng.choice(["Enabled", "Disabled"])
    if rng.random() < 0.4:
        params["inboundIpRules"] = {"type": "array", "defaultValue": []}
        props["inboundIpRules"] = "[parameters('inboundIpRules')]"
    elif rng.random() < 0.3:
        props["inboundIpRules"] = [
            {"ipMask": c, "action": "Allow"} for c in rng.sample(CIDRS, rng.randrange(1, 3))
        ]
    if rng.random() < 0.5:
        params["disableLocalAuth"] = {"type": "bool", "defaultValue": rng.random() < 0.5}
        props["disableLocalAuth"] = "[parameters('disableLocalAuth')]"
    elif rng.random() < 0.5:
        props["disableLocalAuth"] = rng.random() < 0.7
    tls = rng.random()
    if tls < 0.3:
        params["minimumTlsVersionAllowed"] = {"type": "string", "defaultValue": "1.2"}
        props["minimumTlsVersionAllowed"] = "[parameters('minimumTlsVersionAllowed')]"
    elif tls < 0.7:
        props["minimumTlsVersionAllowed"] = rng.choice(["1.2", "1.2", "1.1", "1.0"])
    if rng.random() < 0.15:
        props["dataResidencyBoundary"] = rng.choice(["WithinGeopair", "WithinRegion"])
    props["autoCreateTopicWithFirstSubscription"] = rng.random() < 0.5
    props["autoDeleteTopicWithLastSubscription"] = rng.random() < 0.5
    domain: dict[str, Any] = {
        "type": "Microsoft.EventGrid/domains",
        "apiVersion": rng.choice(["2022-06-15", "2023-06-01-preview", "2025-02-15"]),
        "name": "[parameters('domainName')]",
        "location": "[parameters('location')]",
        "tags": {"environment": env, "area": area},
        "properties": props,
    }
    identity = rng.random()
    if identity < 0.4:
        domain["identity"] = {"type": "SystemAssigned"}
    elif identity < 0.5:
        domain["identity"] = {"type": "None"}
    count = 1
    if rng.random() < 0.12:  # one domain per team, by a copy loop
        count = rng.randrange(2, 5)
        params["domainNames"] = {
            "type": "array",
            "defaultValue": [f"evgd-{area}-{env}-{w}" for w in rng.sample(WORDS, count)],
        }
        domain["name"] = "[parameters('domainNames')[copyIndex()]]"
        domain["copy"] = {"name": "domains", "count": "[length(parameters('domainNames'))]"}
    resources: dict[str, dict[str, Any]] = {"domain": domain}
    if count == 1 and rng.random() < 0.4:
        for word in rng.sample(WORDS, rng.randrange(1, 4)):
            name = (
                f"[format('{{0}}/{{1}}', parameters('domainName'), '{word}')]"
                if bicep
                else f"[concat(parameters('domainName'), '/{word}')]"
            )
            resources[word] = {
                "type": "Microsoft.EventGrid/domains/topics",
                "apiVersion": domain["apiVersion"],
                "name": name,
                "dependsOn": [
                    "[resourceId('Microsoft.EventGrid/domains', parameters('domainName'))]"
                ],
            }
    if count == 1 and rng.random() < 0.25:
        resources["privateEndpoint"] = {
            "type": "Microsoft.Network/privateEndpoints",
            "apiVersion": "2023-04-01",
            "name": "[format('pe-{0}', parameters('domainName'))]",
            "location": "[parameters('location')]",
            "properties": {
                "subnet": {
                    "id": f"[resourceId('rg-network-{env}', 'Microsoft.Network/virtualNetworks/subnets', 'vnet-{area}-{env}', 'snet-pe')]"
                },
                "privateLinkServiceConnections": [
                    {
                        "name": "domain",
                        "properties": {
                            "privateLinkServiceId": "[resourceId('Microsoft.EventGrid/domains', parameters('domainName'))]",
                            "groupIds": ["domain"],
                        },
                    }
                ],
            },
            "dependsOn": ["[resourceId('Microsoft.EventGrid/domains', parameters('domainName'))]"],
        }
    template: dict[str, Any] = {"$schema": SCHEMA, "contentVersion": "1.0.0.0"}
    if bicep:
        template["metadata"] = {
            "_generator": {
                "name": "bicep",
                "version": "0.30.23.60470",
                "templateHash": str(rng.getrandbits(63)),
            }
        }
    template["parameters"] = params
    template["resources"] = list(resources.values())
    template["outputs"] = {
        "domainId": {
            "type": "string",
            "value": "[resourceId('Microsoft.EventGrid/domains', parameters('domainName'))]",
        }
    }
    if count > 1:
        del template["outputs"]
    return template, count, list(resources)


def _domain_parameters(
    rng: Random, template: dict[str, Any], area: str, env: str
) -> dict[str, Any]:
    """A parameters file for a domain template: the values an environment sets."""
    declared = template["parameters"]
    values: dict[str, Any] = {}
    if rng.random() < 0.7:
        values["domainName"] = {"value": f"evgd-{area}-{env}-{rng.choice(WORDS)}"}
    if "publicNetworkAccess" in declared and rng.random() < 0.6:
        values["publicNetworkAccess"] = {"value": "Disabled" if env == "prod" else "Enabled"}
    if "inboundIpRules" in declared and rng.random() < 0.7:
        values["inboundIpRules"] = {
            "value": [
                {"ipMask": c, "action": "Allow"} for c in rng.sample(CIDRS, rng.randrange(1, 4))
            ]
        }
    if "disableLocalAuth" in declared and rng.random() < 0.5:
        values["disableLocalAuth"] = {"value": env == "prod"}
    if "minimumTlsVersionAllowed" in declared and rng.random() < 0.3:
        values["minimumTlsVersionAllowed"] = {"value": rng.choice(["1.0", "1.2"])}
    if rng.random() < 0.3:
        values["location"] = {"value": rng.choice(REGIONS)}
    return {"$schema": PARAMS_SCHEMA, "contentVersion": "1.0.0.0", "parameters": values}


def _symbolic(template: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """The ``languageVersion: "2.0"`` layout of a Bicep-compiled template: resources by symbolic
    name (``dependsOn`` too), in the key order bicep writes."""
    out: dict[str, Any] = {"$schema": template["$schema"], "languageVersion": "2.0"}
    for key, value in template.items():
        if key == "resources":
            value = {
                name: {**res, "dependsOn": [names[0]]} if "dependsOn" in res else res
                for name, res in zip(names, value, strict=True)
            }
        if key != "$schema":
            out[key] = value
    return out


def _count_resources(tree: _Tree, template: dict[str, Any], copies: int = 1) -> None:
    for res in _resources(template):
        n = copies if res.get("type") == "Microsoft.EventGrid/domains" else 1
        tree.resources[res["type"]] += n
        for inner in _resources(res.get("properties", {}).get("template", {"resources": []})):
            tree.resources[inner["type"]] += 1


def _arm_pair(tree: _Tree, quickstarts: list[Any], folder: str, index: int) -> None:
    rng = tree.rng
    area, env = rng.choice(AREAS), rng.choice(ENVS)
    if rng.random() < 0.35:
        template, copies, _ = _domain_template(rng, area, env, bicep=False)
        params = _domain_parameters(rng, template, area, env)
    else:
        _, base, base_params = rng.choice(quickstarts)
        template = copy.deepcopy(base)
        for res in _resources(template):
            if res["type"] == "Microsoft.HDInsight/clusters":
                _vary_cluster(rng, template, res, area, env)
        name = f"hdi-{area.replace('-', '')[:8]}-{env}-{index:04d}"
        params = _fill_parameters(rng, base_params, name, area, env, index)
        copies = 1
    _count_resources(tree, template, copies)
    tree.write_json("arm", f"{folder}/azuredeploy.json", template)
    tree.write_json("arm", f"{folder}/azuredeploy.parameters.json", params)


def _bicep(
    tree: _Tree, samples: dict[str, dict[str, Any]], folder: str, index: int, *, with_params: bool
) -> None:
    rng = tree.rng
    area, env = rng.choice(AREAS), rng.choice(ENVS)
    symbolic = rng.random() < 0.5
    params: dict[str, Any] | None = None
    if rng.random() < 0.4:
        template, copies, names = _domain_template(rng, area, env, bicep=True)
        if symbolic:
            template = _symbolic(template, names)
        if with_params:
            params = _domain_parameters(rng, template, area, env)
    else:
        template = copy.deepcopy(samples["symbolic" if symbolic else "array"])
        for res in _resources(template):
            if res["type"] == "Microsoft.HDInsight/clusters":
                _vary_cluster(rng, template, res, area, env)
        copies = 1
        if with_params:
            values: dict[str, Any] = {
                "clusterName": {"value": f"hdi-{area.replace('-', '')[:8]}-{env}-{index:04d}"},
                "clusterLoginUserName": {"value": rng.choice(["admin", "hdiadmin"])},
                "sshUserName": {"value": "sshuser"},
                "clusterLoginPassword": _secret_value(rng, area, env, f"gateway-{index}"),
                "sshPassword": _secret_value(rng, area, env, f"ssh-{index}"),
            }
            params = {"$schema": PARAMS_SCHEMA, "contentVersion": "1.0.0.0", "parameters": values}
    _count_resources(tree, template, copies)
    tree.write_json("bicep", f"{folder}/main.json", template)
    if params is not None:
        tree.write_json("bicep", f"{folder}/main.parameters.json", params)


# -- Terraform -------------------------------------------------------------------------------


def _tf_domain(rng: Random, address: str, area: str, lines: list[str]) -> int:
    body = []
    count = 1
    if rng.random() < 0.12:
        teams = rng.sample(WORDS, rng.randrange(2, 4))
        count = len(teams)
        body.append(f"  for_each            = toset({json.dumps(teams)})")
        body.append('  name                = "evgd-${var.project}-${var.environment}-${each.key}"')
    else:
        body.append(f'  name                = "evgd-${{var.project}}-${{var.environment}}-{area}"')
    body.append("  location            = azurerm_resource_group.this.location")
    body.append("  resource_group_name = azurerm_resource_group.this.name")
    public = rng.random()
    if public < 0.35:
        body.append("  public_network_access_enabled = var.public_network_access")
    elif public < 0.6:
        body.append("  public_network_access_enabled = false")
    if rng.random() < 0.5:
        body.append(f"  local_auth_enabled            = {rng.choice(['false', 'false', 'true'])}")
    if rng.random() < 0.3:
        body.append(
            f'  input_schema                  = "{rng.choice(["CloudEventSchemaV1_0", "EventGridSchema"])}"'
        )
    if rng.random() < 0.4:
        body.append("  auto_create_topic_with_first_subscription = false")
        body.append("  auto_delete_topic_with_last_subscription  = false")
    if rng.random() < 0.4:
        body.append("")
        body.append('  dynamic "inbound_ip_rule" {')
        body.append("    for_each = var.allowed_cidrs")
        body.append("    content {")
        body.append("      ip_mask = inbound_ip_rule.value")
        body.append('      action  = "Allow"')
        body.append("    }")
        body.append("  }")
    elif rng.random() < 0.3:
        for cidr in rng.sample(CIDRS, rng.randrange(1, 3)):
            body += [
                "",
                "  inbound_ip_rule {",
                f'    ip_mask = "{cidr}"',
                '    action  = "Allow"',
                "  }",
            ]
    if rng.random() < 0.5:
        body += ["", "  identity {", '    type = "SystemAssigned"', "  }"]
    if rng.random() < 0.05:
        body.insert(
            0, "  # auditor:skip=DOM-006 events are pushed by a webhook, no identity needed"
        )
    body += ["", "  tags = local.tags"]
    lines += [f'resource "azurerm_eventgrid_domain" "{address}" {{', *body, "}", ""]
    return count


def _tf_cluster(rng: Random, kind: str, address: str, area: str, lines: list[str]) -> None:
    component, component_version = CLUSTER_KINDS[kind]
    body = [
        f'  name                = "hdi-${{var.project}}-${{var.environment}}-{kind.replace("_", "")[:8]}"',
        "  resource_group_name = azurerm_resource_group.this.name",
        "  location            = azurerm_resource_group.this.location",
        f'  cluster_version     = "{rng.choice(["4.0", "5.0", "5.1", "5.1"])}"',
        '  tier                = "Standard"',
    ]
    tls = rng.random()
    if tls < 0.5:
        body.append('  tls_min_version     = "1.2"')
    elif tls < 0.6:
        body.append('  tls_min_version     = "1.0"')
    if rng.random() < 0.5:
        body.append(f"  encryption_in_transit_enabled = {rng.choice(['true', 'true', 'false'])}")
    body += ["", "  component_version {", f'    {component} = "{component_version}"', "  }"]
    gateway_password = "var.gateway_password" if rng.random() < 0.7 else json.dumps(_password(rng))
    body += [
        "",
        "  gateway {",
        '    username = "hdiadmin"',
        f"    password = {gateway_password}",
        "  }",
        "",
        "  storage_account {",
        "    storage_container_id = azurerm_storage_container.this.id",
        "    storage_account_key  = azurerm_storage_account.this.primary_access_key",
        "    is_default           = true",
        "  }",
    ]
    if rng.random() < 0.4:
        body += [
            "",
            "  network {",
            f'    connection_direction = "{rng.choice(["Outbound", "Outbound", "Inbound"])}"',
            f"    private_link_enabled = {rng.choice(['true', 'false'])}",
            "  }",
        ]
    if rng.random() < 0.3:
        body += [
            "",
            "  disk_encryption {",
            f"    encryption_at_host_enabled    = {rng.choice(['true', 'true', 'false'])}",
            '    encryption_algorithm          = "RSA-OAEP"',
            "    key_vault_key_id              = azurerm_key_vault_key.hdi.id",
            "    key_vault_managed_identity_id = var.hdi_identity_id",
            "  }",
        ]
    if kind in ("hadoop", "spark", "interactive_query") and rng.random() < 0.3:
        body += [
            "",
            "  metastores {",
            "    hive {",
            f'      server        = "sql-{area}.database.windows.net"',
            '      database_name = "hive"',
            '      username      = "sqladmin"',
            "      password      = var.metastore_password",
            "    }",
            "  }",
        ]
    use_ssh = rng.random() < 0.4
    in_vnet = rng.random() < 0.45
    node_password = "var.node_password" if rng.random() < 0.7 else json.dumps(_password(rng))
    roles = [("head_node", "Standard_E8_v3", None), ("worker_node", "Standard_E8_v3", 3)]
    roles.append(("zookeeper_node", "Standard_A4_v2", None))
    body += ["", "  roles {"]
    for role, size, count in roles:
        body.append(f"    {role} {{")
        body.append(f'      vm_size  = "{size}"')
        body.append('      username = "sshuser"')
        if use_ssh:
            body.append("      ssh_keys = [var.ssh_public_key]")
        else:
            body.append(f"      password = {node_password}")
        if count is not None:
            body.append(f"      target_instance_count = {rng.choice([2, 3, 4, 8])}")
            if kind == "kafka":
                body.append("      number_of_disks_per_node = 2")
        if in_vnet:
            body.append("      virtual_network_id = azurerm_virtual_network.this.id")
            body.append("      subnet_id          = azurerm_subnet.hdi.id")
        body.append("    }")
    body.append("  }")
    if rng.random() < 0.05:
        body.insert(0, "  # auditor:skip=CLU-011 pinned until the jobs are ported to 5.1")
    body += ["", "  tags = local.tags"]
    lines += [f'resource "azurerm_hdinsight_{kind}_cluster" "{address}" {{', *body, "}", ""]


def _terraform(tree: _Tree, folder: str, index: int, files: int) -> None:
    """A Terraform folder: ``main.tf`` and (``files`` >= 2) ``variables.tf``, (3) ``terraform.tfvars``."""
    rng = tree.rng
    area, env = rng.choice(AREAS), rng.choice(ENVS)
    what = rng.random()
    domains = what < 0.6
    kinds = sorted(CLUSTER_KINDS)
    clusters = [rng.choice(kinds)] if what > 0.4 else []
    if clusters and rng.random() < 0.15:
        clusters.append(rng.choice(kinds))
    lines = [
        "terraform {",
        '  required_version = ">= 1.5"',
        "  required_providers {",
        "    azurerm = {",
        '      source  = "hashicorp/azurerm"',
        '      version = "~> 3.110"',
        "    }",
        "  }",
        "}",
        "",
        'provider "azurerm" {',
        "  features {}",
        "}",
        "",
        "locals {",
        "  tags = {",
        "    environment = var.environment",
        f'    area        = "{area}"',
        '    managed_by  = "terraform"',
        "  }",
        "}",
        "",
        'resource "azurerm_resource_group" "this" {',
        '  name     = "rg-${var.project}-${var.environment}"',
        "  location = var.location",
        "  tags     = local.tags",
        "}",
        "",
    ]
    tree.resources["azurerm_resource_group"] += 1
    if clusters or rng.random() < 0.5:
        lines += [
            'resource "azurerm_storage_account" "this" {',
            f'  name                     = "st{area.replace("-", "")[:8]}{env}{index:04d}"',
            "  resource_group_name      = azurerm_resource_group.this.name",
            "  location                 = azurerm_resource_group.this.location",
            '  account_tier             = "Standard"',
            f'  account_replication_type = "{rng.choice(["LRS", "GRS", "ZRS"])}"',
            '  min_tls_version          = "TLS1_2"',
            f"  public_network_access_enabled = {rng.choice(['true', 'false'])}",
            "  tags                     = local.tags",
            "}",
            "",
            'resource "azurerm_storage_container" "this" {',
            '  name                  = "hdinsight"',
            "  storage_account_name  = azurerm_storage_account.this.name",
            '  container_access_type = "private"',
            "}",
            "",
        ]
        tree.resources["azurerm_storage_account"] += 1
        tree.resources["azurerm_storage_container"] += 1
    if clusters:
        lines += [
            'resource "azurerm_virtual_network" "this" {',
            '  name                = "vnet-${var.project}-${var.environment}"',
            '  address_space       = ["10.40.0.0/16"]',
            "  location            = azurerm_resource_group.this.location",
            "  resource_group_name = azurerm_resource_group.this.name",
            "}",
            "",
            'resource "azurerm_subnet" "hdi" {',
            '  name                 = "snet-hdi"',
            "  resource_group_name  = azurerm_resource_group.this.name",
            "  virtual_network_name = azurerm_virtual_network.this.name",
            '  address_prefixes     = ["10.40.1.0/24"]',
            "}",
            "",
            'resource "azurerm_key_vault_key" "hdi" {',
            '  name         = "hdi-cmk"',
            "  key_vault_id = var.key_vault_id",
            '  key_type     = "RSA"',
            "  key_size     = 2048",
            '  key_opts     = ["wrapKey", "unwrapKey"]',
            "}",
            "",
        ]
        for kind in ("azurerm_virtual_network", "azurerm_subnet", "azurerm_key_vault_key"):
            tree.resources[kind] += 1
    if domains:
        n = _tf_domain(rng, rng.choice(["events", "this", "domain"]), area, lines)
        tree.resources["azurerm_eventgrid_domain"] += n
    for i, kind in enumerate(clusters):
        _tf_cluster(rng, kind, "this" if i == 0 else f"{kind}_{i}", area, lines)
        tree.resources[f"azurerm_hdinsight_{kind}_cluster"] += 1
    tree.write("terraform", f"{folder}/main.tf", "\n".join(lines))
    if files < 2:
        return
    variables = [
        ("location", "string", json.dumps(rng.choice(REGIONS))),
        ("environment", "string", json.dumps(env)),
        ("project", "string", json.dumps(area)),
        ("public_network_access", "bool", rng.choice(["true", "false"])),
        ("allowed_cidrs", "list(string)", "[]"),
        ("key_vault_id", "string", None),
        ("hdi_identity_id", "string", None),
        (
            "ssh_public_key",
            "string",
            '"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC0bench bench@example"',
        ),
    ]
    text = []
    for name, typ, default in variables:
        text += [f'variable "{name}" {{', f"  type    = {typ}"]
        if default is not None:
            text.append(f"  default = {default}")
        text += ["}", ""]
    for name in ("gateway_password", "node_password", "metastore_password"):
        text += [f'variable "{name}" {{', "  type      = string", "  sensitive = true"]
        if rng.random() < 0.2:  # a default in the repository: a literal secret
            text.append(f"  default   = {json.dumps(_password(rng))}")
        text += ["}", ""]
    tree.write("terraform", f"{folder}/variables.tf", "\n".join(text))
    if files < 3:
        return
    tfvars = [f'environment = "{env}"', f'project     = "{area}-{index:04d}"']
    if rng.random() < 0.6:
        cidrs = rng.sample(CIDRS, rng.randrange(1, 4))
        tfvars.append(f"allowed_cidrs = {json.dumps(cidrs)}")
    if rng.random() < 0.5:
        tfvars.append(f"public_network_access = {'false' if env == 'prod' else 'true'}")
    if rng.random() < 0.7:
        sub = SUBSCRIPTION.format(rng.randrange(8))
        tfvars.append(
            f'key_vault_id = "/subscriptions/{sub}/resourceGroups/rg-secrets-{env}/providers/Microsoft.KeyVault/vaults/kv-{area}-{env}"'
        )
    if rng.random() < 0.25:  # committed by mistake, as happens
        tfvars.append(f"gateway_password = {json.dumps(_password(rng))}")
    tree.write("terraform", f"{folder}/terraform.tfvars", "\n".join(tfvars) + "\n")


def generate_repository(root: Path, files: int, seed: int) -> _Tree:
    """Write the repository of ``files`` template files into ``root`` (see the module doc)."""
    rng = Random(seed)
    tree = _Tree(root, rng)
    quickstarts = _load_quickstarts()
    samples = {
        "array": json.loads((BICEP_SAMPLE / "main.json").read_text(encoding="utf-8")),
        "symbolic": json.loads(
            (BICEP_SAMPLE / "main.symbolicnames.json").read_text(encoding="utf-8")
        ),
    }
    arm_files = (files * 2 // 5) // 2 * 2
    tf_files = files * 2 // 5
    bicep_files = files - arm_files - tf_files
    for i in range(arm_files // 2):
        area = rng.choice(AREAS)
        folder = f"arm/{area}/{rng.choice(ENVS)}/{rng.choice(WORDS)}-{i:04d}"
        _arm_pair(tree, quickstarts, folder, i)
    i = 0
    while tree.files["bicep"] < bicep_files:
        left = bicep_files - tree.files["bicep"]
        folder = f"bicep/modules/{rng.choice(AREAS)}/{rng.choice(WORDS)}-{i:04d}"
        _bicep(tree, samples, folder, i, with_params=left >= 2 and rng.random() < 1 / 3)
        i += 1
    i = 0
    while tree.files["terraform"] < tf_files:
        left = tf_files - tree.files["terraform"]
        folder = f"terraform/{rng.choice(ENVS)}/{rng.choice(AREAS)}/{rng.choice(WORDS)}-{i:04d}"
        _terraform(tree, folder, i, min(3, left))
        i += 1
    return tree


def cached_repository(files: int, seed: int) -> tuple[Path, dict[str, Any]]:
    """The generated repository, made once per size and seed (``benchmarks/.cache/``), and its
    counts (files by kind, resources by type)."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"iac-repo-f{files}-s{seed}-v{GENERATOR_VERSION}"
    manifest = path.with_name(path.name + ".manifest.json")
    if not manifest.is_file():
        tmp = path.with_name(path.name + ".partial")
        shutil.rmtree(tmp, ignore_errors=True)
        started = time.perf_counter()
        tree = generate_repository(tmp, files, seed)
        counts = {"files": dict(tree.files), "resources": dict(sorted(tree.resources.items()))}
        shutil.rmtree(path, ignore_errors=True)
        os.replace(tmp, path)
        manifest.write_text(json.dumps(counts, indent=2), encoding="utf-8")
        print(f"(generated the repository in {time.perf_counter() - started:.1f} s)")
    return path, json.loads(manifest.read_text(encoding="utf-8"))


# -- measuring -------------------------------------------------------------------------------


class _Run:
    """One measured run of a command: wall and CPU seconds (user + system of the child and the
    children it waited for), and its standard output."""

    def __init__(self, cmd: list[str], *, cwd: str, env: dict[str, str] | None = None) -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run(
            cmd, capture_output=True, text=True, check=False, cwd=cwd, env=env or child_env()
        )
        self.wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        self.stdout = proc.stdout
        if proc.returncode not in (0, 1):  # 1: a failing finding / a failed check
            tail = (proc.stderr or proc.stdout)[-2000:]
            raise SystemExit(f"{' '.join(cmd[:3])} ... exited {proc.returncode}:\n{tail}")


def _spread(runs: list[_Run]) -> str:
    """Median wall clock (range) and median CPU of ``runs``."""
    walls = [r.wall for r in runs]
    cpu = statistics.median(r.cpu for r in runs)
    if len(walls) == 1:
        return f"{walls[0]:6.2f} s  CPU {cpu:6.2f} s"
    return (
        f"{statistics.median(walls):6.2f} s ({min(walls):.2f}-{max(walls):.2f})  CPU {cpu:6.2f} s"
    )


def gate(path: Path, tmp: str, **env: str) -> tuple[_Run, dict[str, Any]]:
    """``auditor gate PATH -o json=...`` once (from an empty folder: no configuration file; ``env``
    added to its environment), and its report."""
    out = Path(tmp) / "findings.json"
    run = _Run(
        [str(AUDITOR), "gate", str(path), "-o", f"json={out}"], cwd=tmp, env=child_env(**env)
    )
    return run, json.loads(out.read_text(encoding="utf-8"))


def checkov_binary(explicit: str | None, *, install: bool) -> Path | None:
    """The checkov to compare with: ``--checkov``, or the benchmark's own virtualenv (made with
    ``pip install checkov`` on first use when ``install``)."""
    if explicit:
        return Path(explicit)
    binary = CHECKOV_VENV / "bin" / "checkov"
    if binary.exists():
        return binary
    if not install:
        return None
    print(f"installing checkov into {CHECKOV_VENV} (once; a few minutes) ...", flush=True)
    shutil.rmtree(CHECKOV_VENV, ignore_errors=True)
    base = getattr(sys, "_base_executable", sys.executable)
    steps = [
        [base, "-m", "venv", str(CHECKOV_VENV)],
        [str(CHECKOV_VENV / "bin" / "python"), "-m", "pip", "install", "-q", "checkov"],
    ]
    for step in steps:
        if subprocess.run(step, check=False).returncode != 0:
            print("checkov could not be installed: the auditor figures alone follow")
            shutil.rmtree(CHECKOV_VENV, ignore_errors=True)
            return None
    return binary


def checkov(binary: Path, path: Path, tmp: str) -> tuple[_Run, dict[str, Any]]:
    """``checkov -d PATH`` once (Terraform only, JSON out, nothing downloaded, from an empty
    folder), and its summary."""
    cmd = [str(binary), "-d", str(path), "--framework", "terraform", "--quiet", "--compact"]
    cmd += ["-o", "json", "--skip-download"]
    run = _Run(cmd, cwd=tmp, env=child_env(BC_SKIP_MAPPING="TRUE"))
    result = json.loads(run.stdout)
    if isinstance(result, list):
        result = next((r for r in result if r.get("check_type") == "terraform"), result[0])
    summary: dict[str, Any] = result.get("summary", {})
    return run, summary


def _findings_key(report: dict[str, Any]) -> list[Any]:
    """A report's findings and summary, without its times."""
    return [report.get("findings"), report.get("summary"), report.get("coverage")]


def _report_counts(report: dict[str, Any]) -> str:
    """Findings listed and counted, the requests (resources) judged and the files read."""
    findings = report.get("findings", [])
    summary = report.get("summary", {})
    failing = sum(summary.get(k, 0) for k in ("critical", "high", "medium", "low", "info"))
    coverage = report.get("coverage", {})
    inputs = coverage.get("inputs", [])
    requests = sum(i.get("requests", 0) for i in inputs)
    return (
        f"{len(findings):,} findings: {failing:,} failing, {summary.get('unknown', 0):,} unknown, "
        f"{summary.get('passed', 0):,} passed, {summary.get('waived', 0):,} waived; "
        f"{requests:,} resources judged, from {len(inputs):,} files read "
        f"({len(coverage.get('skipped', [])):,} skipped)"
    )


_PROFILE = """
import cProfile, pstats, sys, tempfile
from auditor.cli import main
with tempfile.TemporaryDirectory() as tmp:
    profile = cProfile.Profile()
    code = profile.runcall(main, ["gate", sys.argv[1], "-o", f"json={tmp}/findings.json"])
stats = pstats.Stats(profile)
print(f"exit code {code}")
stats.sort_stats("cumulative").print_stats(r"auditor/|hcl2/api|lark/lark.py", int(sys.argv[2]))
"""


def profile(path: Path, top: int) -> None:
    """cProfile of ``auditor.cli.main(["gate", PATH, ...])`` in a fresh interpreter: the ``top``
    entries by cumulative time among auditor's functions and the HCL and Lark parser calls."""
    proc = subprocess.run(
        [sys.executable, "-c", _PROFILE, str(path), str(top)],
        capture_output=True,
        text=True,
        check=False,
        env=child_env(),
    )
    print(proc.stdout[-20000:] or proc.stderr[-4000:])


_PHASES = """
import functools, importlib, json, sys, tempfile, time
from collections import Counter
started = time.process_time()
from auditor.cli import main
imported = time.process_time() - started
PHASES = json.loads(sys.argv[2])
totals, calls = Counter(), Counter()

def timed(label, fn):
    depth = [0]
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if depth[0]:
            return fn(*args, **kwargs)
        depth[0] += 1
        begin = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            totals[label] += time.process_time() - begin
            calls[label] += 1
            depth[0] -= 1
    return wrapper

missing = []
for label, module, name in PHASES:
    try:
        owner = importlib.import_module(module)
        cls, _, attr = name.rpartition(".")
        if cls:
            owner = getattr(owner, cls)
        fn = getattr(owner, attr)
    except (ImportError, AttributeError):
        missing.append(label)
        continue
    wrapper = timed(label, fn)
    setattr(owner, attr, wrapper)
    if not cls:  # every module that imported the function by name (not this script's globals)
        hits = [(mod, key) for mod in list(sys.modules.values()) if mod.__name__ != "__main__"
                for key, value in list(vars(mod).items()) if value is fn]
        for mod, key in hits:
            setattr(mod, key, wrapper)
loaded = time.process_time() - started
with tempfile.TemporaryDirectory() as tmp:
    code = main(["gate", sys.argv[1], "-o", f"json={tmp}/findings.json"])
total = time.process_time()
print(json.dumps({"code": code, "import": imported, "preload": loaded - imported, "total": total,
                  "totals": totals, "calls": calls, "missing": missing}))
"""

PHASES = [
    ("read every input (read_deployment)", "auditor.sources.gate", "read_deployment"),
    ("  Terraform folders (read_terraform)", "auditor.sources.terraform", "read_terraform"),
    ("    HCL parse (tree-sitter)", "auditor.sources.terraform._hcl", "parse_source"),
    ("  ARM and Bicep (read_arm_template)", "auditor.sources.arm", "read_arm_template"),
    ("    ARM expression evaluation", "auditor.expr.arm.evaluator", "evaluate_value"),
    ("rule engine (Engine.run)", "auditor.audit.engine", "Engine.run"),
    ("waivers and summary (_finish)", "auditor.audit.runner", "_finish"),
    ("report writing (report.write)", "auditor.report", "write"),
]
"""Where a gate's CPU time goes: (label, module, function); nested calls count once, outermost.
The timers see this process only: with two processes reading a repository's Terraform modules,
the worker's share is not counted (``AUDITOR_HCL_PARSER`` and the thresholds of
``auditor.sources.terraform._parallel`` change what runs where)."""


def phases(path: Path) -> None:
    """CPU seconds by phase of one ``auditor.cli.main(["gate", PATH, ...])`` in a fresh
    interpreter (the functions of :data:`PHASES` wrapped with a timer; no profiler overhead)."""
    proc = subprocess.run(
        [sys.executable, "-c", _PHASES, str(path), json.dumps(PHASES)],
        capture_output=True,
        text=True,
        check=False,
        env=child_env(),
    )
    if proc.returncode != 0:
        print(f"phases: the child failed:\n{proc.stderr[-3000:]}")
        return
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    total = got["total"]
    print(
        f"  {'start-up: import auditor.cli':40s} {got['import']:6.2f} s  {got['import'] / total:4.0%}"
    )
    print(f"  {'  (modules the timers import early)':40s} {got['preload']:6.2f} s")
    for label, _, _ in PHASES:
        if label in got["missing"]:
            print(f"  {label:40s}    n/a (not found)")
            continue
        sec = got["totals"].get(label, 0.0)
        n = got["calls"].get(label, 0)
        print(f"  {label:40s} {sec:6.2f} s  {sec / total:4.0%}  ({n:,} calls)")
    print(f"  {'whole process (CPU)':40s} {total:6.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000, help="template files in the repository")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--runs", type=int, default=3, help="runs of each command (medians quoted)")
    parser.add_argument(
        "--quick", action="store_true", help="200 files, one run; checkov only if installed"
    )
    parser.add_argument("--no-checkov", action="store_true", help="the auditor figures alone")
    parser.add_argument("--checkov", help="a checkov executable to use instead of the cached one")
    parser.add_argument(
        "--profile", type=int, metavar="N", help="also print cProfile's top N of the whole gate"
    )
    parser.add_argument(
        "--phases", action="store_true", help="also print the gate's CPU time by phase"
    )
    args = parser.parse_args()
    if args.quick:
        args.files, args.runs = 200, 1
    if not AUDITOR.exists():
        raise SystemExit(f"{AUDITOR} is missing: run `make` (the project's virtualenv) first")
    repo, counts = cached_repository(args.files, args.seed)
    tf = repo / "terraform"
    files, res = counts["files"], counts["resources"]
    judged = {k: v for k, v in res.items() if k in JUDGED or k.startswith("azurerm_hdinsight_")}
    size = sum(p.stat().st_size for p in repo.rglob("*") if p.is_file()) / 2**20
    print(
        f"repository: {sum(files.values()):,} files ({size:.1f} MB): "
        + ", ".join(f"{n:,} {kind}" for kind, n in files.items())
    )
    print(
        f"resources: {sum(res.values()):,}, of which {sum(judged.values()):,} domains and clusters "
        f"({sum(v for k, v in judged.items() if k.startswith('azurerm')):,} in Terraform)"
    )
    print(
        f"runs: {args.runs} of each (median, range), wall clock; CPU is the child's user + system"
    )
    with tempfile.TemporaryDirectory(prefix="bench-iac-") as tmp:
        gate(tf, tmp)  # (untimed: the bytecode cache written, the files in the page cache)
        startup = [_Run([str(AUDITOR), "--version"], cwd=tmp) for _ in range(3)]
        print(f"start-up (auditor --version): {_spread(startup)}")

        whole = [gate(repo, tmp) for _ in range(args.runs)]
        median = statistics.median(run.wall for run, _ in whole)
        verdict = "meets" if median <= GOAL_SECONDS else "MISSES"
        print(f"\nauditor gate REPO             {_spread([run for run, _ in whole])}")
        print(f"  {_report_counts(whole[-1][1])}")
        print(f"  {verdict} the goal of <= {GOAL_SECONDS:.0f} s (wall clock, median)")

        binary = None if args.no_checkov else checkov_binary(args.checkov, install=not args.quick)
        if binary is not None:  # (untimed, on one module: its bytecode cache written too)
            module = next(p.parent for p in sorted(tf.rglob("*.tf")))
            checkov(binary, module, tmp)
        ours: list[_Run] = []
        lark: list[_Run] = []
        theirs: list[_Run] = []
        report: dict[str, Any] = {}
        before: dict[str, Any] = {}
        summary: dict[str, Any] = {}
        for _ in range(args.runs):  # interleaved: all see the same phases of a shared machine
            run, report = gate(tf, tmp)
            ours.append(run)
            run, before = gate(tf, tmp, AUDITOR_HCL_PARSER="python-hcl2")
            lark.append(run)
            if binary is not None:
                run, summary = checkov(binary, tf, tmp)
                theirs.append(run)
        print(f"auditor gate REPO/terraform   {_spread(ours)}")
        print(f"  {_report_counts(report)}")
        same = _findings_key(report) == _findings_key(before)
        gain = statistics.median(r.wall for r in lark) / statistics.median(r.wall for r in ours)
        print(
            f"  the same, python-hcl2's parse {_spread(lark)}: tree-sitter {gain:.1f}x faster; "
            f"findings {'identical' if same else 'DIFFER'}"
        )
        if binary is None:
            why = "--no-checkov" if args.no_checkov else "not installed; run without --quick"
            print(f"checkov: not run ({why})")
        else:
            print(f"checkov -d REPO/terraform     {_spread(theirs)}")
            print(
                f"  {summary.get('resource_count', '?')} resources, {summary.get('failed', '?')} "
                f"failed and {summary.get('passed', '?')} passed checks, "
                f"{summary.get('parsing_errors', '?')} parsing errors "
                f"(checkov {summary.get('checkov_version', '?')})"
            )
            ratio = statistics.median(r.wall for r in theirs) / statistics.median(
                r.wall for r in ours
            )
            pairs = sorted(t.wall / o.wall for o, t in zip(ours, theirs, strict=True))
            cpu_ratio = statistics.median(r.cpu for r in theirs) / statistics.median(
                r.cpu for r in ours
            )
            verdict = "meets" if ratio >= GOAL_RATIO else "MISSES"
            print(
                f"\nratio on the Terraform part: auditor {ratio:.1f}x faster than checkov, wall "
                f"clock (run by run {pairs[0]:.1f}-{pairs[-1]:.1f}x), {cpu_ratio:.1f}x in CPU; "
                f"{verdict} the goal of >= {GOAL_RATIO:.0f}x"
            )

    if args.phases:
        print("\nCPU time by phase, one gate of the whole repository (in-process timers):")
        phases(repo)
    if args.profile:
        print(f"\ncProfile of the gate of the whole repository (top {args.profile}):")
        profile(repo, args.profile)


if __name__ == "__main__":
    main()

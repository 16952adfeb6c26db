"""Conditions from the vendor's public documentation (Azure ABAC example conditions for Blob
Storage, delegating role assignment management, the Key Vault Data Access Administrator role),
with ``Microsoft.`` replaced by ``Cloud.``: each parses, prints, re-parses equal, and evaluates as
the documentation says on a few requests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from auditor.expr.condition import (
    ConditionRequest,
    attributes_read,
    compile_condition,
    parse_condition,
    print_condition,
    targeted_actions,
    validate_condition,
)

BLOBS = "Cloud.Storage/storageAccounts/blobServices/containers/blobs"
READ = f"{BLOBS}/read"
WRITE = f"{BLOBS}/write"
ADD = f"{BLOBS}/add/action"
DELETE = f"{BLOBS}/delete"
TAGS_WRITE = f"{BLOBS}/tags/write"
CONTAINER_NAME = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name]"
BLOB_PATH = f"@Resource[{BLOBS}:path]"
PREFIX = f"@Request[{BLOBS}:prefix]"
RES_TAG = "@Resource[" + BLOBS + "/tags:{}<$key_case_sensitive$>]"
REQ_TAG = "@Request[" + BLOBS + "/tags:{}<$key_case_sensitive$>]"
REQ_TAG_KEYS = f"@Request[{BLOBS}/tags&$keys$&]"
PRINCIPAL_PROJECT = "@Principal[Cloud.Directory/CustomSecurityAttributes/Id:Engineering_Project]"
ROLE_WRITE = "Cloud.Authorization/roleAssignments/write"
ROLE_DELETE = "Cloud.Authorization/roleAssignments/delete"
REQ_ROLE = "@Request[Cloud.Authorization/roleAssignments:RoleDefinitionId]"
RES_ROLE = "@Resource[Cloud.Authorization/roleAssignments:RoleDefinitionId]"
SCOPE_NAME = "@Resource[Cloud.Storage/storageAccounts/encryptionScopes:name]"
SUBNET = "@Environment[Cloud.Network/virtualNetworks/subnets]"
SUBNET_ID = (
    "/subscriptions/s1/resourceGroups/example-group/providers/Cloud.Network/virtualNetworks/"
    "virtualnetwork1/subnets/default"
)
ENDPOINT = "@Environment[Cloud.Network/privateEndpoints]"
ENDPOINT_ID = (
    "/subscriptions/s1/resourceGroups/SampleRG/providers/Cloud.Network/privateEndpoints/"
    "privateendpoint1"
)
CI_ANY = "ForAnyOfAnyValues:StringEqualsIgnoreCase"
REQ_PRINCIPAL_TYPE = "@Request[Cloud.Authorization/roleAssignments:PrincipalType]"
RES_PRINCIPAL_TYPE = "@Resource[Cloud.Authorization/roleAssignments:PrincipalType]"

KEY_VAULT_DATA_ROLES = [
    "00482a5a-887f-4fb3-b363-3b7fe8e74483",
    "a4417e6f-fecd-4de8-b567-7b0420556985",
    "14b46e9e-c2b7-41b4-b07b-48a6ebf60603",
    "e147488a-f6f5-4113-8e2d-b22465e65bf6",
    "12338af0-0e69-4776-bea7-57ae8d297424",
    "21090545-7ca7-4776-b22c-e363652d74d2",
    "b86a8fe4-44ce-4948-aee5-eccb2c155cd7",
    "4633458b-17de-408a-b874-0445c86b69e6",
]
OWNER = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
BACKUP_CONTRIBUTOR = "5e467623-bb1f-42f4-a55d-6e525e11384b"
BACKUP_READER = "a795c7a0-d4a2-40c1-ae25-d81f01202912"


def _spec_key_vault_condition() -> str:
    """The condition of semantics §7, read from the shared spec when it is there."""
    spec = Path(__file__).resolve().parents[2] / "shared" / "spec" / "semantics.md"
    if spec.is_file():
        text = spec.read_text(encoding="utf-8")
        start = text.find("((!(ActionMatches{'Cloud.Authorization/roleAssignments/write'")
        if start >= 0:
            return text[start : text.index("\n", start)].strip()
    roles = ", ".join(KEY_VAULT_DATA_ROLES)
    return (
        f"((!(ActionMatches{{'{ROLE_WRITE}'}})) OR ({REQ_ROLE} "
        f"ForAnyOfAnyValues:GuidEquals{{{roles}}}))"
        f" AND ((!(ActionMatches{{'{ROLE_DELETE}'}})) OR ({RES_ROLE} "
        f"ForAnyOfAnyValues:GuidEquals{{{roles}}}))"
    )


@dataclass(frozen=True)
class Example:
    name: str
    text: str
    cases: tuple[tuple[ConditionRequest, bool | None], ...]


def r(action: str, sub: str | None, attributes: dict[str, object] | None) -> ConditionRequest:
    return ConditionRequest(action, sub, attributes)


EXAMPLES = [
    Example(
        "read blobs with a blob index tag",
        f"""(
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  {RES_TAG.format("Project")} StringEquals 'Cascade'
 )
)""",
        (
            (r(READ, None, {RES_TAG.format("Project"): "Cascade"}), True),
            (r(READ, None, {RES_TAG.format("Project"): "Baker"}), False),
            (r(READ, None, {RES_TAG.format("project"): "Cascade"}), False),  # tag key case
            (r(READ, None, {}), False),
            (r(READ, "Blob.List", {}), True),  # listing is not targeted
            (r(WRITE, None, None), True),
            (r(READ, None, None), None),
        ),
    ),
    Example(
        "new blobs must include a blob index tag",
        f"""(
 (
  !(ActionMatches{{'{WRITE}'}} AND SubOperationMatches{{'Blob.Write.WithTagHeaders'}})
  AND
  !(ActionMatches{{'{ADD}'}} AND SubOperationMatches{{'Blob.Write.WithTagHeaders'}})
 )
 OR
 (
  {REQ_TAG.format("Project")} StringEquals 'Cascade'
 )
)""",
        (
            (r(WRITE, "Blob.Write.WithTagHeaders", {REQ_TAG.format("Project"): "Cascade"}), True),
            (r(ADD, "Blob.Write.WithTagHeaders", {REQ_TAG.format("Project"): "Baker"}), False),
            (r(WRITE, None, None), True),  # no tag headers: not targeted
            (r(ADD, "blob.write.withtagheaders", None), None),
        ),
    ),
    Example(
        "existing blobs must have blob index tag keys",
        f"""(
 (
  !(ActionMatches{{'{WRITE}'}} AND SubOperationMatches{{'Blob.Write.WithTagHeaders'}})
  AND
  !(ActionMatches{{'{TAGS_WRITE}'}})
 )
 OR
 (
  {REQ_TAG_KEYS} ForAllOfAnyValues:StringEquals {{'Project', 'Program'}}
 )
)""",
        (
            (r(TAGS_WRITE, None, {REQ_TAG_KEYS: ["Program", "Project"]}), True),
            (r(TAGS_WRITE, None, {REQ_TAG_KEYS: ["Mode"]}), False),
            (r(TAGS_WRITE, None, {REQ_TAG_KEYS: []}), True),  # ForAll over no keys
            (r(TAGS_WRITE, None, {}), False),  # absent
            (r(READ, None, None), True),
        ),
    ),
    Example(
        "existing blobs must have a blob index tag key and values",
        f"""(
 (
  !(ActionMatches{{'{WRITE}'}} AND SubOperationMatches{{'Blob.Write.WithTagHeaders'}})
  AND
  !(ActionMatches{{'{TAGS_WRITE}'}})
 )
 OR
 (
  {REQ_TAG_KEYS} ForAnyOfAnyValues:StringEquals {{'Project'}}
  AND
  {REQ_TAG.format("Project")} ForAllOfAnyValues:StringEquals {{'Cascade', 'Baker', 'Skagit'}}
 )
)""",
        (
            (
                r(
                    TAGS_WRITE,
                    None,
                    {REQ_TAG_KEYS: ["Project"], REQ_TAG.format("Project"): "Baker"},
                ),
                True,
            ),
            (
                r(
                    TAGS_WRITE,
                    None,
                    {REQ_TAG_KEYS: ["Project"], REQ_TAG.format("Project"): "Alpine"},
                ),
                False,
            ),
            (r(TAGS_WRITE, None, {REQ_TAG_KEYS: ["Program"]}), False),
        ),
    ),
    Example(
        "read, write, or delete blobs in named containers",
        f"""(
 (
  !(ActionMatches{{'{DELETE}'}})
  AND
  !(ActionMatches{{'{READ}'}})
  AND
  !(ActionMatches{{'{WRITE}'}})
  AND
  !(ActionMatches{{'{ADD}'}})
  AND
  !(ActionMatches{{'{BLOBS}/runAsSuperUser/action'}})
 )
 OR
 (
  {CONTAINER_NAME} StringEquals 'blobs-example-container'
 )
)""",
        (
            (r(DELETE, None, {CONTAINER_NAME: "blobs-example-container"}), True),
            (r(WRITE, None, {CONTAINER_NAME: "ungranted"}), False),
            (r(f"{BLOBS}/runAsSuperUser/action", None, None), None),
            (r("Cloud.Storage/storageAccounts/read", None, None), True),
        ),
    ),
    Example(
        "read blobs in named containers with a path",
        f"""(
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  {CONTAINER_NAME} StringEquals 'blobs-example-container'
  AND
  {BLOB_PATH} StringLike 'readonly/*'
 )
)""",
        (
            (
                r(
                    READ,
                    None,
                    {CONTAINER_NAME: "blobs-example-container", BLOB_PATH: "readonly/a/b.txt"},
                ),
                True,
            ),
            (r(READ, None, {CONTAINER_NAME: "blobs-example-container", BLOB_PATH: "x.txt"}), False),
            (r(READ, None, {CONTAINER_NAME: "other", BLOB_PATH: "readonly/x"}), False),
        ),
    ),
    Example(
        "read or list blobs in named containers with a path",
        f"""(
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  {CONTAINER_NAME} StringEquals 'blobs-example-container'
  AND
  {BLOB_PATH} StringStartsWith 'readonly/'
 )
)
AND
(
 (
  !(ActionMatches{{'{READ}'}} AND SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  {CONTAINER_NAME} StringEquals 'blobs-example-container'
  AND
  {PREFIX} StringStartsWith 'readonly/'
 )
)""",
        (
            (
                r(
                    READ,
                    "Blob.List",
                    {CONTAINER_NAME: "blobs-example-container", PREFIX: "readonly/"},
                ),
                True,
            ),
            (r(READ, "Blob.List", {CONTAINER_NAME: "blobs-example-container", PREFIX: ""}), False),
            (
                r(READ, None, {CONTAINER_NAME: "blobs-example-container", BLOB_PATH: "readonly/z"}),
                True,
            ),
        ),
    ),
    Example(
        "write blobs in named containers with a path",
        f"""(
 (
  !(ActionMatches{{'{WRITE}'}})
  AND
  !(ActionMatches{{'{ADD}'}})
 )
 OR
 (
  {CONTAINER_NAME} StringEquals 'contosocorp'
  AND
  {BLOB_PATH} StringLike 'uploads/contoso/*'
 )
)""",
        (
            (
                r(ADD, None, {CONTAINER_NAME: "contosocorp", BLOB_PATH: "uploads/contoso/a.txt"}),
                True,
            ),
            (r(WRITE, None, {CONTAINER_NAME: "contosocorp", BLOB_PATH: "Example7.txt"}), False),
        ),
    ),
    Example(
        "read blobs with a blob index tag and a path",
        f"""(
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  {RES_TAG.format("Program")} StringEquals 'Alpine'
 )
)
AND
(
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  {BLOB_PATH} StringLike 'logs*'
 )
)""",
        (
            (r(READ, None, {RES_TAG.format("Program"): "Alpine", BLOB_PATH: "logs/a.txt"}), True),
            (
                r(READ, None, {RES_TAG.format("Program"): "Alpine", BLOB_PATH: "AlpineFile.txt"}),
                False,
            ),
            (
                r(READ, None, {RES_TAG.format("Program"): "Baker", BLOB_PATH: "logsAlpine.txt"}),
                False,
            ),
        ),
    ),
    Example(
        "read current blob versions and a specific blob version",
        f"""(
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  @Request[{BLOBS}:versionId] DateTimeEquals '2022-06-01T23:38:32.8883645Z'
  OR
  @Resource[{BLOBS}:isCurrentVersion] BoolEquals true
 )
)""",
        (
            (r(READ, None, {f"@Request[{BLOBS}:versionId]": "2022-06-01T23:38:32.8883645Z"}), True),
            (
                r(READ, None, {f"@Request[{BLOBS}:versionId]": "2022-06-01T23:38:32.8883646Z"}),
                False,
            ),
            (r(READ, None, {f"@Resource[{BLOBS}:isCurrentVersion]": True}), True),
        ),
    ),
    Example(
        "delete old blob versions",
        f"""(
 (
  !(ActionMatches{{'{DELETE}'}})
  AND
  !(ActionMatches{{'{BLOBS}/deleteBlobVersion/action'}})
 )
 OR
 (
  @Request[{BLOBS}:versionId] DateTimeLessThan '2022-06-01T00:00:00.0Z'
 )
)""",
        (
            (
                r(DELETE, None, {f"@Request[{BLOBS}:versionId]": "2022-05-31T23:59:59.9999999Z"}),
                True,
            ),
            (r(DELETE, None, {f"@Request[{BLOBS}:versionId]": "2022-06-01T00:00:00Z"}), False),
        ),
    ),
    Example(
        "read current blob versions and any blob snapshots",
        f"""(
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  Exists @Request[{BLOBS}:snapshot]
  OR
  @Resource[{BLOBS}:isCurrentVersion] BoolEquals true
 )
)""",
        (
            (r(READ, None, {f"@Request[{BLOBS}:snapshot]": "2022-06-01T00:00:00Z"}), True),
            (r(READ, None, {f"@Resource[{BLOBS}:isCurrentVersion]": False}), False),
        ),
    ),
    Example(
        "read only storage accounts with hierarchical namespace enabled",
        f"""(
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  @Resource[Cloud.Storage/storageAccounts:isHnsEnabled] BoolEquals true
 )
)""",
        (
            (r(READ, None, {"@Resource[Cloud.Storage/storageAccounts:isHnsEnabled]": True}), True),
            (
                r(READ, None, {"@Resource[Cloud.Storage/storageAccounts:isHnsEnabled]": False}),
                False,
            ),
        ),
    ),
    Example(
        "read blobs with specific encryption scopes",
        f"""(
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  {SCOPE_NAME} ForAnyOfAnyValues:StringEquals {{'validScope1', 'validScope2'}}
 )
)""",
        (
            (
                r(
                    READ,
                    None,
                    {SCOPE_NAME: "validScope2"},
                ),
                True,
            ),
            (
                r(
                    READ,
                    None,
                    {SCOPE_NAME: "other"},
                ),
                False,
            ),
        ),
    ),
    Example(
        "read or write blobs based on blob index tags and custom security attributes",
        f"""(
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  {PRINCIPAL_PROJECT} StringEquals {RES_TAG.format("Project")}
 )
)
AND
(
 (
  !(ActionMatches{{'{WRITE}'}} AND SubOperationMatches{{'Blob.Write.WithTagHeaders'}})
  AND
  !(ActionMatches{{'{ADD}'}} AND SubOperationMatches{{'Blob.Write.WithTagHeaders'}})
 )
 OR
 (
  {PRINCIPAL_PROJECT} StringEquals {REQ_TAG.format("Project")}
 )
)""",
        (
            (r(READ, None, {PRINCIPAL_PROJECT: "Baker", RES_TAG.format("Project"): "Baker"}), True),
            (
                r(READ, None, {PRINCIPAL_PROJECT: "Baker", RES_TAG.format("Project"): "Cascade"}),
                False,
            ),
            (
                r(
                    WRITE,
                    "Blob.Write.WithTagHeaders",
                    {PRINCIPAL_PROJECT: "Baker", REQ_TAG.format("Project"): "Baker"},
                ),
                True,
            ),
        ),
    ),
    Example(
        "read blobs based on blob index tags and multi-value custom security attributes",
        f"""(
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  {RES_TAG.format("Project")} ForAnyOfAnyValues:StringEquals {PRINCIPAL_PROJECT}
 )
)""",
        (
            (
                r(
                    READ,
                    None,
                    {PRINCIPAL_PROJECT: ["Baker", "Cascade"], RES_TAG.format("Project"): "Cascade"},
                ),
                True,
            ),
            (
                r(
                    READ,
                    None,
                    {PRINCIPAL_PROJECT: ["Baker", "Cascade"], RES_TAG.format("Project"): "Skagit"},
                ),
                False,
            ),
        ),
    ),
    Example(
        "require private link access to read blobs with high sensitivity",
        f""" (
 (
  !(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})
 )
 OR
 (
  (
   {RES_TAG.format("sensitivity")} StringEquals 'high'
   AND
   @Environment[isPrivateLink] BoolEquals true
  )
  OR
  {RES_TAG.format("sensitivity")} StringNotEquals 'high'
  OR
  NOT Exists {RES_TAG.format("sensitivity")}
 )
) """,
        (
            (
                r(
                    READ,
                    None,
                    {RES_TAG.format("sensitivity"): "high", "@Environment[isPrivateLink]": True},
                ),
                True,
            ),
            (
                r(
                    READ,
                    None,
                    {RES_TAG.format("sensitivity"): "high", "@Environment[isPrivateLink]": False},
                ),
                False,
            ),
            (r(READ, None, {RES_TAG.format("sensitivity"): "low"}), True),
            (r(READ, None, {}), True),
        ),
    ),
    Example(
        "allow access to blobs in specific containers from a specific subnet",
        f"""(
 (
  !(ActionMatches{{'{READ}'}})
  AND
  !(ActionMatches{{'{WRITE}'}})
  AND
  !(ActionMatches{{'{ADD}'}})
  AND
  !(ActionMatches{{'{DELETE}'}})
 )
 OR
 (
  (
   {CONTAINER_NAME} StringEquals 'container1'
   AND
   {SUBNET} StringEqualsIgnoreCase '{SUBNET_ID}'
  )
  OR
  {CONTAINER_NAME} StringNotEquals 'container1'
 )
)""",
        (
            (
                r(
                    READ,
                    None,
                    {
                        CONTAINER_NAME: "container1",
                        SUBNET: SUBNET_ID.upper(),
                    },
                ),
                True,
            ),
            (r(READ, None, {CONTAINER_NAME: "container1"}), False),
            (r(READ, None, {CONTAINER_NAME: "container2"}), True),
        ),
    ),
    Example(
        "allow read access to blobs after a specific date and time",
        f"""(
 (
  !(ActionMatches{{'{READ}'}})
 )
 OR
 (
  (
   {CONTAINER_NAME} StringEquals 'container1'
   AND
   @Environment[UtcNow] DateTimeGreaterThan '2023-04-01T13:00:00.000Z'
  )
  OR
  {CONTAINER_NAME} StringNotEquals 'container1'
 )
)""",
        (
            (
                r(
                    READ,
                    None,
                    {CONTAINER_NAME: "container1", "@Environment[UtcNow]": "2023-04-01T13:00:01Z"},
                ),
                True,
            ),
            (
                r(
                    READ,
                    None,
                    {CONTAINER_NAME: "container1", "@Environment[UtcNow]": "2023-04-01T13:00:00Z"},
                ),
                False,
            ),
            (
                r(
                    READ,
                    None,
                    {
                        CONTAINER_NAME: "container1",
                        "@Environment[UtcNow]": "2023-04-01T14:30:00+02:00",
                    },
                ),
                False,
            ),
        ),
    ),
    Example(
        "require write operations to use specific tag values from a specific endpoint",
        f"""(
 (
  !(ActionMatches{{'{ADD}'}} AND SubOperationMatches{{'Blob.Write.WithTagHeaders'}})
  AND
  !(ActionMatches{{'{WRITE}'}} AND SubOperationMatches{{'Blob.Write.WithTagHeaders'}})
 )
 OR
 (
  (
   {REQ_TAG.format("sensitivity")} {CI_ANY} {{'high', 'low', 'medium'}}
   AND
   {ENDPOINT} StringEqualsIgnoreCase '{ENDPOINT_ID}'
  )
  OR
  {REQ_TAG_KEYS} ForAnyOfAnyValues:StringNotEqualsIgnoreCase {{'sensitivity'}}
 )
)""",
        (
            (
                r(
                    WRITE,
                    "Blob.Write.WithTagHeaders",
                    {
                        REQ_TAG.format("sensitivity"): "HIGH",
                        ENDPOINT: ENDPOINT_ID,
                        REQ_TAG_KEYS: ["sensitivity"],
                    },
                ),
                True,
            ),
            (r(WRITE, "Blob.Write.WithTagHeaders", {REQ_TAG_KEYS: ["project"]}), True),
            (
                r(
                    WRITE,
                    "Blob.Write.WithTagHeaders",
                    {REQ_TAG_KEYS: ["sensitivity"], REQ_TAG.format("sensitivity"): "high"},
                ),
                False,
            ),
        ),
    ),
    Example(
        "delegate: constrain roles",
        f"""(
(
!(ActionMatches{{'{ROLE_WRITE}'}})
)
OR
(
{REQ_ROLE} ForAnyOfAnyValues:GuidEquals {{{BACKUP_CONTRIBUTOR}, {BACKUP_READER}}}
)
)
AND
(
(
!(ActionMatches{{'{ROLE_DELETE}'}})
)
OR
(
{RES_ROLE} ForAnyOfAnyValues:GuidEquals {{{BACKUP_CONTRIBUTOR}, {BACKUP_READER}}}
)
)""",
        (
            (r(ROLE_WRITE, None, {REQ_ROLE: BACKUP_READER.upper()}), True),
            (r(ROLE_WRITE, None, {REQ_ROLE: OWNER}), False),
            (r(ROLE_DELETE, None, {RES_ROLE: BACKUP_CONTRIBUTOR}), True),
            (r("Cloud.Authorization/roleAssignments/read", None, None), True),
            (r(ROLE_WRITE, None, None), None),
        ),
    ),
    Example(
        "delegate: constrain roles and principal types",
        f"((!(ActionMatches{{'{ROLE_WRITE}'}})) OR ({REQ_ROLE} ForAnyOfAnyValues:GuidEquals "
        f"{{{BACKUP_CONTRIBUTOR}}} AND {REQ_PRINCIPAL_TYPE} {CI_ANY} "
        f"{{'ServicePrincipal'}})) AND ((!(ActionMatches{{'{ROLE_DELETE}'}})) OR ({RES_ROLE} "
        f"ForAnyOfAnyValues:GuidEquals {{{BACKUP_CONTRIBUTOR}}} AND {RES_PRINCIPAL_TYPE} "
        f"ForAnyOfAnyValues:StringEqualsIgnoreCase {{'ServicePrincipal'}}))",
        (
            (
                r(
                    ROLE_WRITE,
                    None,
                    {REQ_ROLE: BACKUP_CONTRIBUTOR, REQ_PRINCIPAL_TYPE: "servicePrincipal"},
                ),
                True,
            ),
            (
                r(ROLE_WRITE, None, {REQ_ROLE: BACKUP_CONTRIBUTOR, REQ_PRINCIPAL_TYPE: "User"}),
                False,
            ),
        ),
    ),
    Example(
        "key vault data access administrator (semantics §7)",
        _spec_key_vault_condition(),
        (
            (r(ROLE_WRITE, None, {REQ_ROLE: KEY_VAULT_DATA_ROLES[-1]}), True),
            (r(ROLE_WRITE, None, {REQ_ROLE: OWNER}), False),
            (r(ROLE_DELETE, None, {RES_ROLE: "00482A5A-887F-4FB3-B363-3B7FE8E74483"}), True),
            (r(ROLE_DELETE, None, {RES_ROLE: OWNER}), False),
            (r(ROLE_WRITE, None, {}), False),
            (r("Cloud.KeyVault/vaults/read", None, None), True),
            (r(ROLE_WRITE, None, None), None),
            (r(ROLE_DELETE, None, None), None),
        ),
    ),
]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_vendor_example_round_trips(example: Example) -> None:
    tree = parse_condition(example.text)
    printed = print_condition(tree)
    assert parse_condition(printed) == tree
    assert print_condition(parse_condition(printed)) == printed
    assert "\n" not in printed
    assert validate_condition(example.text, "2.0") == []
    assert compile_condition(example.text).text == printed


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_vendor_example_evaluates(example: Example) -> None:
    compiled = compile_condition(example.text)
    reprinted = compile_condition(print_condition(parse_condition(example.text)))
    for request, expected in example.cases:
        assert compiled(request) is expected, (request, expected)
        assert reprinted(request) is expected


def test_vendor_examples_are_at_least_ten() -> None:
    assert len(EXAMPLES) >= 10


def test_key_vault_condition_targets_and_reads() -> None:
    tree = parse_condition(_spec_key_vault_condition())
    assert targeted_actions(tree) == {ROLE_WRITE, ROLE_DELETE}
    assert attributes_read(tree) == {REQ_ROLE, RES_ROLE}
    compiled = compile_condition(tree)
    assert compiled.targeted_actions == {ROLE_WRITE, ROLE_DELETE}
    # a write with the attribute for the delete side only: the write side still decides
    assert compiled(r(ROLE_WRITE, None, {RES_ROLE: KEY_VAULT_DATA_ROLES[0]})) is False

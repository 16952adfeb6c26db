"""The shipped operation list: operations auditor knows exist even when no role of an estate names
them literally, so that asking about one is not reported as a possible misspelling
(:mod:`auditor.access.advice`).

The seed's own operations (the endpoints of seed §4 and what the sandbox asks of the access engine),
the operations the contracts and the README use as examples, and a few everyday operations of the
platform's common resource types. The built-in roles' literal operations (semantics §7) are not
repeated here: the estate's role catalogue, built-ins included, is read for those at run time.
"""

from __future__ import annotations

__all__ = ["CONTROL_OPERATIONS", "DATA_OPERATIONS", "VERBS"]

VERBS = frozenset({"read", "write", "delete", "action"})
"""The last segment of every operation name of the platform."""

CONTROL_OPERATIONS: frozenset[str] = frozenset(
    {
        # seed 4.1/4.2: access control
        "Cloud.Authorization/roleAssignments/read",
        "Cloud.Authorization/roleAssignments/write",
        "Cloud.Authorization/roleAssignments/delete",
        "Cloud.Authorization/roleDefinitions/read",
        "Cloud.Authorization/roleDefinitions/write",
        "Cloud.Authorization/roleDefinitions/delete",
        "Cloud.Authorization/denyAssignments/read",
        "Cloud.Authorization/denyAssignments/write",
        "Cloud.Authorization/denyAssignments/delete",
        "Cloud.Authorization/elevateAccess/action",
        # seed 4.3: analytics clusters
        "Cloud.AnalyticsCluster/clusters/read",
        "Cloud.AnalyticsCluster/clusters/write",
        "Cloud.AnalyticsCluster/clusters/delete",
        "Cloud.AnalyticsCluster/clusters/getGatewaySettings/action",
        "Cloud.AnalyticsCluster/clusters/updateGatewaySettings/action",
        "Cloud.AnalyticsCluster/clusters/configurations/read",
        "Cloud.AnalyticsCluster/clusters/configurations/action",
        "Cloud.AnalyticsCluster/clusters/roles/resize/action",
        "Cloud.AnalyticsCluster/clusters/operationresults/read",
        # seed 4.4: event routing
        "Cloud.EventRouting/domains/read",
        "Cloud.EventRouting/domains/write",
        "Cloud.EventRouting/domains/delete",
        "Cloud.EventRouting/domains/listKeys/action",
        "Cloud.EventRouting/domains/regenerateKey/action",
        "Cloud.EventRouting/domains/topics/read",
        "Cloud.EventRouting/domains/topics/write",
        "Cloud.EventRouting/domains/topics/delete",
        "Cloud.EventRouting/topics/read",
        "Cloud.EventRouting/topics/write",
        "Cloud.EventRouting/topics/delete",
        "Cloud.EventRouting/eventSubscriptions/read",
        "Cloud.EventRouting/eventSubscriptions/write",
        "Cloud.EventRouting/eventSubscriptions/delete",
        # seed 4.5: resource health
        "Cloud.ResourceHealth/events/read",
        "Cloud.ResourceHealth/availabilityStatuses/read",
        # the scope tree
        "Cloud.Management/managementGroups/read",
        "Cloud.Management/managementGroups/write",
        "Cloud.Management/managementGroups/delete",
        "Cloud.Resources/subscriptions/read",
        "Cloud.Resources/subscriptions/resourceGroups/read",
        "Cloud.Resources/subscriptions/resourceGroups/write",
        "Cloud.Resources/subscriptions/resourceGroups/delete",
        "Cloud.Resources/deployments/read",
        "Cloud.Resources/deployments/write",
        "Cloud.Resources/deployments/delete",
        # the examples of the contracts and the README, and everyday resource types
        "Cloud.Compute/virtualMachines/read",
        "Cloud.Compute/virtualMachines/write",
        "Cloud.Compute/virtualMachines/delete",
        "Cloud.Compute/virtualMachines/start/action",
        "Cloud.Compute/virtualMachines/restart/action",
        "Cloud.Compute/virtualMachines/deallocate/action",
        "Cloud.Network/virtualNetworks/read",
        "Cloud.Network/virtualNetworks/write",
        "Cloud.Network/virtualNetworks/delete",
        "Cloud.Storage/storageAccounts/read",
        "Cloud.Storage/storageAccounts/write",
        "Cloud.Storage/storageAccounts/delete",
        "Cloud.Storage/storageAccounts/listKeys/action",
        "Cloud.KeyVault/vaults/read",
        "Cloud.KeyVault/vaults/write",
        "Cloud.KeyVault/vaults/delete",
    }
)
"""Control-plane operations (``dataAction: false``)."""

DATA_OPERATIONS: frozenset[str] = frozenset(
    {
        "Cloud.EventRouting/events/send/action",
        "Cloud.Storage/storageAccounts/blobServices/containers/blobs/read",
        "Cloud.Storage/storageAccounts/blobServices/containers/blobs/write",
        "Cloud.Storage/storageAccounts/blobServices/containers/blobs/delete",
        "Cloud.Storage/storageAccounts/blobServices/containers/blobs/add/action",
        "Cloud.Storage/storageAccounts/blobServices/containers/blobs/move/action",
        "Cloud.KeyVault/vaults/secrets/getSecret/action",
        "Cloud.KeyVault/vaults/secrets/readMetadata/action",
    }
)
"""Data-plane operations (``dataAction: true``)."""

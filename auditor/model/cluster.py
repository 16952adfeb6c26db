"""Area B of the seed: the analytics cluster create request and the Cluster response (section 2.B).

Secrets (storage keys, node passwords, SSH key material, secret-looking configuration settings) are
typed :class:`~auditor.model.secrets.Secret`, so they never show in a repr, a log or a masked dump.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from auditor.model._base import WireModel
from auditor.model.secrets import ConfigMap, Secret

CLUSTER_RESOURCE_TYPE = "Cloud.AnalyticsCluster/clusters"


class OsType(StrEnum):
    """Seed 2.B uses ``Linux``; ``Windows`` is the public API's other value."""

    LINUX = "Linux"
    WINDOWS = "Windows"


class ClusterTier(StrEnum):
    """Seed 2.B uses ``Standard``; ``Premium`` is the public API's other value."""

    STANDARD = "Standard"
    PREMIUM = "Premium"


class ResourceProviderConnection(StrEnum):
    """Seed 2.B uses ``Outbound``; ``Inbound`` is the public API's other value."""

    INBOUND = "Inbound"
    OUTBOUND = "Outbound"


class PrivateLink(StrEnum):
    """Seed 2.B uses ``Enabled``; ``Disabled`` is the public API's other value."""

    DISABLED = "Disabled"
    ENABLED = "Enabled"


class ClusterRoleName(StrEnum):
    """Role names used by the seed (2.B)."""

    HEADNODE = "headnode"
    WORKERNODE = "workernode"
    ZOOKEEPERNODE = "zookeepernode"


class ClusterProvisioningState(StrEnum):
    """Seed 2.B/3 shows ``Succeeded``; the others are the public API's (not in the seed)."""

    SUCCEEDED = "Succeeded"
    IN_PROGRESS = "InProgress"
    FAILED = "Failed"
    CANCELED = "Canceled"
    DELETING = "Deleting"


class ClusterState(StrEnum):
    """Seed 2.B/3 shows ``Running``; the full set is not shown."""

    RUNNING = "Running"


class EncryptionAlgorithm(StrEnum):
    """``diskEncryptionProperties.encryptionAlgorithm`` values of the public API (not in seed)."""

    RSA_OAEP = "RSA-OAEP"
    RSA_OAEP_256 = "RSA-OAEP-256"
    RSA1_5 = "RSA1_5"


class ConfigurationGroup(StrEnum):
    """Configuration groups of ``clusterDefinition.configurations`` used by the seed (2.B)."""

    GATEWAY = "gateway"
    AMBARI_CONF = "ambari-conf"
    HIVE_SITE = "hive-site"
    HIVE_ENV = "hive-env"
    OOZIE_SITE = "oozie-site"
    OOZIE_ENV = "oozie-env"


class ClusterIdentity(WireModel):
    """The cluster identity (seed 2.B: fields not shown). Keeps whatever comes."""


class ClusterDefinition(WireModel):
    """``clusterDefinition``: software kind and configuration groups (request), blueprint and
    component versions (response). Secret-looking configuration keys hold Secrets."""

    kind: str | None = None
    configurations: ConfigMap | None = None
    blueprint: str | None = None
    componentVersion: dict[str, str] | None = None


class StorageAccount(WireModel):
    """An element of ``storageProfile.storageaccounts`` (seed 2.B)."""

    name: str | None = None
    isDefault: bool | None = None
    container: str | None = None
    key: Secret | None = None


class StorageProfile(WireModel):
    """``storageProfile``; the wire name ``storageaccounts`` is lower case."""

    storageaccounts: list[StorageAccount] = Field(default_factory=list)


class HardwareProfile(WireModel):
    vmSize: str | None = None


class SshPublicKey(WireModel):
    """An SSH public key; its ``certificateData`` is key material and never echoed."""

    certificateData: Secret | None = None


class SshProfile(WireModel):
    publicKeys: list[SshPublicKey] = Field(default_factory=list)


class LinuxOperatingSystemProfile(WireModel):
    """Node login: the response returns only ``username``."""

    username: str | None = None
    password: Secret | None = None
    sshProfile: SshProfile | None = None


class OsProfile(WireModel):
    linuxOperatingSystemProfile: LinuxOperatingSystemProfile | None = None


class VirtualNetworkProfile(WireModel):
    """Resource ids of the virtual network and subnet (seed 2.B)."""

    id: str | None = None
    subnet: str | None = None


class ClusterRole(WireModel):
    """An element of ``computeProfile.roles`` (seed 2.B role table)."""

    name: str | None = None
    targetInstanceCount: int | None = None
    hardwareProfile: HardwareProfile | None = None
    osProfile: OsProfile | None = None
    virtualNetworkProfile: VirtualNetworkProfile | None = None


class ComputeProfile(WireModel):
    roles: list[ClusterRole] = Field(default_factory=list)


class NetworkProperties(WireModel):
    resourceProviderConnection: str | None = None
    privateLink: str | None = None


class ComputeIsolationProperties(WireModel):
    enableComputeIsolation: bool | None = None
    hostSku: str | None = None


class DiskEncryptionProperties(WireModel):
    """Request: ``encryptionAtHost``; the response also has the key fields (null when unused)."""

    encryptionAtHost: bool | None = None
    vaultUri: str | None = None
    keyName: str | None = None
    keyVersion: str | None = None
    encryptionAlgorithm: str | None = None
    msiResourceId: str | None = None


class EncryptionInTransitProperties(WireModel):
    isEncryptionInTransitEnabled: bool | None = None


class ClusterCreateProperties(WireModel):
    """``properties`` of the cluster create request (seed 2.B)."""

    clusterVersion: str | None = None
    osType: str | None = None
    tier: str | None = None
    clusterDefinition: ClusterDefinition | None = None
    storageProfile: StorageProfile | None = None
    computeProfile: ComputeProfile | None = None
    networkProperties: NetworkProperties | None = None
    computeIsolationProperties: ComputeIsolationProperties | None = None
    diskEncryptionProperties: DiskEncryptionProperties | None = None
    encryptionInTransitProperties: EncryptionInTransitProperties | None = None


class ClusterCreateRequest(WireModel):
    """The body of the cluster create PUT (seed 2.B, endpoint 4.3)."""

    identity: ClusterIdentity | None = None
    location: str | None = None
    properties: ClusterCreateProperties = Field(default_factory=ClusterCreateProperties)
    tags: dict[str, str] | None = None
    zones: list[str] = Field(default_factory=list)


class QuotaInfo(WireModel):
    coresUsed: int | None = None


class ConnectivityEndpoint(WireModel):
    """An element of ``connectivityEndpoints`` (names seen: SSH, HTTPS; protocol TCP)."""

    name: str | None = None
    protocol: str | None = None
    location: str | None = None
    port: int | None = None


class ClusterProperties(WireModel):
    """``properties`` of the Cluster response (seed 2.B).

    ``storageProfile`` is not in the seed's response table; it is typed anyway so that a storage key
    in a response is held as a Secret rather than as an unknown field.
    """

    clusterVersion: str | None = None
    osType: str | None = None
    clusterId: str | None = None
    clusterDefinition: ClusterDefinition | None = None
    computeProfile: ComputeProfile | None = None
    storageProfile: StorageProfile | None = None
    provisioningState: str | None = None
    clusterState: str | None = None
    createdDate: str | None = None
    quotaInfo: QuotaInfo | None = None
    connectivityEndpoints: list[ConnectivityEndpoint] = Field(default_factory=list)
    tier: str | None = None
    networkProperties: NetworkProperties | None = None
    computeIsolationProperties: ComputeIsolationProperties | None = None
    encryptionInTransitProperties: EncryptionInTransitProperties | None = None
    diskEncryptionProperties: DiskEncryptionProperties | None = None


class Cluster(WireModel):
    """The Cluster returned by create (seed 2.B) and kept in a snapshot (contracts 2)."""

    id: str | None = None
    name: str | None = None
    type: str | None = None
    location: str | None = None
    etag: str | None = None
    tags: dict[str, str] | None = None
    zones: list[str] = Field(default_factory=list)
    identity: ClusterIdentity | None = None
    properties: ClusterProperties = Field(default_factory=ClusterProperties)

resource "azurerm_hdinsight_kafka_cluster" "example" {
  name                = "example-kafka"
  resource_group_name = "example-resources"
  location            = "West Europe"
  cluster_version     = "4.0"
  tier                = "Standard"
  min_tls_version     = "1.2"

  component_version {
    kafka = "2.1"
  }

  gateway {
    username = "acctestusrgw"
    password = "TerrAform123!"
  }

  storage_account_gen2 {
    storage_resource_id          = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/example-resources/providers/Microsoft.Storage/storageAccounts/kafkastor"
    filesystem_id                = "https://kafkastor.dfs.core.windows.net/kafka"
    managed_identity_resource_id = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/example-resources/providers/Microsoft.ManagedIdentity/userAssignedIdentities/kafka"
    is_default                   = true
  }

  roles {
    head_node {
      vm_size  = "Standard_D3_V2"
      username = "acctestusrvm"
      password = "AccTestvdSC4daf986!"
    }

    worker_node {
      vm_size                  = "Standard_D3_V2"
      username                 = "acctestusrvm"
      password                 = "AccTestvdSC4daf986!"
      number_of_disks_per_node = 3
      target_instance_count    = 3
    }

    zookeeper_node {
      vm_size  = "Standard_D3_V2"
      username = "acctestusrvm"
      password = "AccTestvdSC4daf986!"
    }

    kafka_management_node {
      vm_size  = "Standard_D3_V2"
      username = "ignored"
      ssh_keys = [var.ssh_public_key]
    }
  }
}

resource "azurerm_resource_group" "example" {
  name     = "example-resources"
  location = "West Europe"
}

resource "azurerm_storage_account" "example" {
  name                     = "hdinsightstor"
  resource_group_name      = azurerm_resource_group.example.name
  location                 = azurerm_resource_group.example.location
  account_tier             = "Standard"
  account_replication_type = "LRS"
}

resource "azurerm_storage_container" "example" {
  name                  = "hdinsight"
  storage_account_name  = azurerm_storage_account.example.name
  container_access_type = "private"
}

resource "azurerm_hdinsight_spark_cluster" "example" {
  name                          = "example-hdicluster"
  resource_group_name           = azurerm_resource_group.example.name
  location                      = azurerm_resource_group.example.location
  cluster_version               = "5.1"
  tier                          = "Standard"
  tls_min_version               = "1.2"
  encryption_in_transit_enabled = true

  component_version {
    spark = "3.3"
  }

  gateway {
    username = "acctestusrgw"
    password = "TerrAform123!"
  }

  storage_account {
    storage_container_id = azurerm_storage_container.example.id
    storage_account_key  = azurerm_storage_account.example.primary_access_key
    is_default           = true
  }

  network {
    connection_direction = "Outbound"
    private_link_enabled = true
  }

  disk_encryption {
    encryption_at_host_enabled    = true
    encryption_algorithm          = "RSA-OAEP"
    key_vault_key_id              = "https://hdi-vault.vault.azure.net/keys/hdi-key/0123456789abcdef"
    key_vault_managed_identity_id = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/example-resources/providers/Microsoft.ManagedIdentity/userAssignedIdentities/hdi"
  }

  compute_isolation {
    compute_isolation_enabled = true
    host_sku                  = "ESv3-Type2"
  }

  metastores {
    hive {
      server        = "metastore.database.windows.net"
      database_name = "hive"
      username      = "sqladmin"
      password      = var.metastore_password
    }
  }

  roles {
    head_node {
      vm_size            = "Standard_A3"
      username           = "acctestusrvm"
      password           = "AccTestvdSC4daf986!"
      virtual_network_id = var.network.vnet
      subnet_id          = var.network.subnet
    }

    worker_node {
      vm_size               = "Standard_A3"
      username              = "acctestusrvm"
      password              = "AccTestvdSC4daf986!"
      target_instance_count = 3
      virtual_network_id    = var.network.vnet
      subnet_id             = var.network.subnet
    }

    zookeeper_node {
      vm_size            = "Medium"
      username           = "acctestusrvm"
      password           = "AccTestvdSC4daf986!"
      virtual_network_id = var.network.vnet
      subnet_id          = var.network.subnet
    }
  }
}

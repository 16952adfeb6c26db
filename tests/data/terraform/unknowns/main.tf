variable "domain_name" {
  type = string
}

variable "replicas" {
  type = number
}

variable "admin_password" {
  type      = string
  sensitive = true
}

data "azurerm_client_config" "current" {}

resource "random_password" "gateway" {
  length = 20
}

resource "azurerm_eventgrid_domain" "unknown" {
  name                          = var.domain_name
  location                      = "westeurope"
  resource_group_name           = "rg-${data.azurerm_client_config.current.tenant_id}"
  public_network_access_enabled = var.replicas > 2
  input_schema                  = title("eventgridschema")
}

resource "azurerm_eventgrid_domain" "counted" {
  count               = var.replicas
  name                = "counted-${count.index}"
  location            = "westeurope"
  resource_group_name = "rg-known"
}

resource "azurerm_hdinsight_hadoop_cluster" "secrets" {
  name                = "secrets"
  resource_group_name = "rg-known"
  location            = "westeurope"
  cluster_version     = "5.1"
  tier                = "Standard"

  component_version {
    hadoop = "3.1"
  }

  gateway {
    username = "admin"
    password = random_password.gateway.result
  }

  storage_account {
    storage_container_id = "https://stor.blob.core.windows.net/data"
    storage_account_key  = data.azurerm_storage_account.existing.primary_access_key
    is_default           = true
  }

  metastores {
    hive {
      server        = "${var.domain_name}.database.windows.net"
      database_name = "hive"
      username      = "sqladmin"
      password      = var.admin_password
    }
  }

  roles {
    head_node {
      vm_size  = "Standard_D3_V2"
      username = "admin"
      password = var.admin_password
    }

    worker_node {
      vm_size               = "Standard_D4_V2"
      username              = "admin"
      password              = "${var.admin_password}-suffix"
      target_instance_count = var.replicas
    }

    zookeeper_node {
      vm_size  = "Standard_D3_V2"
      username = "admin"
      password = var.admin_password
    }
  }
}

resource "azurerm_hdinsight_hadoop_cluster" "example" {
  name                = "example-hadoop"
  resource_group_name = "example-resources"
  location            = "West Europe"
  cluster_version     = "3.6"
  tier                = "Standard"

  component_version {
    hadoop = "2.7"
  }

  gateway {
    username = "acctestusrgw"
    password = "short"
  }

  storage_account {
    storage_container_id = "https://hadoopstor.blob.core.windows.net/hadoop"
    storage_account_key  = "c3RvcmFnZS1rZXktZm9yLXRlc3RzLW9ubHk="
    is_default           = true
  }

  metastores {
    oozie {
      server        = "oozie.database.windows.net"
      database_name = "oozie"
      username      = "sqladmin"
      password      = "Oozie-Pass-123!"
    }

    ambari {
      server        = "ambari.database.windows.net"
      database_name = "ambari"
      username      = "sqladmin"
      password      = "Ambari-Pass-123!"
    }
  }

  roles {
    head_node {
      vm_size  = "Standard_D3_V2"
      username = "acctestusrvm"
      ssh_keys = [var.ssh_public_key]
    }

    worker_node {
      vm_size               = "Standard_D4_V2"
      username              = "acctestusrvm"
      ssh_keys              = [var.ssh_public_key]
      target_instance_count = 3
    }

    zookeeper_node {
      vm_size  = "Standard_D3_V2"
      username = "acctestusrvm"
      ssh_keys = [var.ssh_public_key]
    }
  }
}

resource "azurerm_hdinsight_interactive_query_cluster" "example" {
  name                = "example-llap"
  resource_group_name = "example-resources"
  location            = "West Europe"
  cluster_version     = "4.0"
  tier                = "Standard"

  component_version {
    interactive_hive = "3.1"
  }

  gateway {
    username = "acctestusrgw"
    password = "TerrAform123!"
  }

  storage_account {
    storage_container_id = "https://llapstor.blob.core.windows.net/llap"
    storage_account_key  = "<STORAGE_KEY>"
    is_default           = true
  }

  storage_account {
    storage_container_id = "https://llapextra.blob.core.windows.net/extra"
    storage_account_key  = "<STORAGE_KEY_2>"
    is_default           = false
  }

  roles {
    head_node {
      vm_size  = "Standard_D13_V2"
      username = "acctestusrvm"
      password = "AccTestvdSC4daf986!"
    }

    worker_node {
      vm_size               = "Standard_D14_V2"
      username              = "acctestusrvm"
      password              = "AccTestvdSC4daf986!"
      target_instance_count = 3
    }

    zookeeper_node {
      vm_size  = "Standard_A4_V2"
      username = "acctestusrvm"
      password = "AccTestvdSC4daf986!"
    }
  }
}

variable "metastore_password" {
  type      = string
  sensitive = true
}

variable "ssh_public_key" {
  type    = string
  default = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDfixture auditor@test"
}

variable "network" {
  type = object({ vnet = string, subnet = string })
  default = {
    vnet   = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/hdi"
    subnet = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/hdi/subnets/default"
  }
}

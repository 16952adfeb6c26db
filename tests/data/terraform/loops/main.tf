variable "environment" {
  type    = string
  default = "prod"
}

locals {
  prefix       = lower("EVT-${var.environment}")
  regions      = ["westeurope", "northeurope"]
  is_prod      = var.environment == "prod"
  allowed_cidr = { office = "198.51.100.0/24", vpn = "192.0.2.0/24" }
  rules        = [for name, cidr in local.allowed_cidr : { ip_mask = cidr, action = "Allow" } if name != "none"]
  teams = {
    alpha = { public = false }
    beta  = { public = true }
  }
}

resource "azurerm_eventgrid_domain" "regional" {
  count               = length(local.regions)
  name                = format("%s-%s-%d", local.prefix, local.regions[count.index], count.index)
  location            = local.regions[count.index]
  resource_group_name = "rg-${local.prefix}"
  local_auth_enabled  = local.is_prod ? false : true

  dynamic "inbound_ip_rule" {
    for_each = local.rules
    iterator = rule
    content {
      ip_mask = rule.value.ip_mask
      action  = rule.value.action
    }
  }
}

resource "azurerm_eventgrid_domain" "team" {
  for_each                      = local.teams
  name                          = "${local.prefix}-${each.key}"
  location                      = "westeurope"
  resource_group_name           = "rg-teams"
  public_network_access_enabled = each.value.public
}

resource "azurerm_eventgrid_domain" "set" {
  for_each            = toset(["b", "a", "b"])
  name                = "set-${each.value}"
  location            = "westeurope"
  resource_group_name = "rg-teams"
}

resource "azurerm_eventgrid_domain" "none" {
  count               = 0
  name                = "never"
  location            = "westeurope"
  resource_group_name = "rg-teams"
}

terraform {
  required_providers {
    azapi = {
      source = "Azure/azapi"
    }
  }
}

variable "resource_group_id" {
  type    = string
  default = "/subscriptions/11111111-1111-1111-1111-111111111111/resourceGroups/rg-events"
}

# azapi 1.x style: the body as jsonencode({...}).
resource "azapi_resource" "domain_json" {
  type      = "Microsoft.EventGrid/domains@2025-02-15"
  name      = "azapi-domain"
  parent_id = var.resource_group_id
  location  = "westeurope"

  body = jsonencode({
    properties = {
      publicNetworkAccess = "Disabled"
      disableLocalAuth    = true
      inputSchema         = "EventGridSchema"
      minimumTlsVersionAllowed = "1.2"
    }
  })
}

# azapi 2.x style: the body as an HCL object, an api-version other than the seed's, an identity.
resource "azapi_resource" "domain_object" {
  type      = "Microsoft.EventGrid/domains@2023-12-15-preview"
  name      = "azapi-domain-2"
  parent_id = var.resource_group_id
  location  = "westeurope"
  tags      = { team = "events" }

  identity {
    type = "SystemAssigned"
  }

  body = {
    properties = {
      publicNetworkAccess = "Enabled"
      inboundIpRules = [
        { ipMask = "203.0.113.0/24", action = "Allow" }
      ]
    }
  }
}

resource "azapi_resource" "storage" {
  type      = "Microsoft.Storage/storageAccounts@2023-01-01"
  name      = "azapistor"
  parent_id = var.resource_group_id
  location  = "westeurope"
  body      = { kind = "StorageV2" }
}

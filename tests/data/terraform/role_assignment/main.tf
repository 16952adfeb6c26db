variable "principal_id" {
  type    = string
  default = "22222222-2222-2222-2222-222222222222"
}

locals {
  scope = "/subscriptions/33333333-3333-3333-3333-333333333333/resourceGroups/rg-data"
}

resource "azurerm_role_assignment" "by_id" {
  name               = "44444444-4444-4444-4444-444444444444"
  scope              = local.scope
  role_definition_id = "/subscriptions/33333333-3333-3333-3333-333333333333/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
  principal_id       = var.principal_id
  principal_type     = "User"
  description        = "Readers of the data resource group"
}

resource "azurerm_role_assignment" "by_name" {
  scope                            = local.scope
  role_definition_name             = "Storage Blob Data Reader"
  principal_id                     = var.principal_id
  skip_service_principal_aad_check = true
  condition                        = <<-EOT
    (
     (
      !(ActionMatches{'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read'})
     )
     OR
     (
      @Resource[Microsoft.Storage/storageAccounts/blobServices/containers:name] StringEquals 'logs'
     )
    )
  EOT
}

resource "azurerm_role_assignment" "custom_role" {
  scope                = local.scope
  role_definition_name = "My Custom Role"
  principal_id         = var.principal_id
}

resource "azurerm_eventgrid_domain" "bad" {
  name                = "bad"
  location            = "westeurope"
  resource_group_name = "rg"

  # auditor:skip=DOM-001
}

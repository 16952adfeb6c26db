resource "azurerm_eventgrid_domain" "broken" {
  name     = "broken"
  location = "westeurope"
  password = "S3cret-Value!" "trailing"
}

resource "azurerm_eventgrid_domain" "suppressed" {
  # auditor:skip=DOM-001 Public endpoint required by the partner integration (ticket SEC-42)
  name                = "suppressed" // auditor:skip=DOM-005,DOM-006 Local auth kept until the publisher moves to tokens
  location            = "westeurope"
  resource_group_name = "rg"
  /* auditor:skip=DOM-00* legacy domain, replaced in Q3 */
  # a plain comment
}

# auditor:skip=DOM-004 outside any block: not a suppression
resource "azurerm_eventgrid_domain" "plain" {
  name                = "plain"
  location            = "westeurope"
  resource_group_name = "rg"
  tags = {
    note = "# auditor:skip=DOM-002 inside a string: not a suppression"
  }
}

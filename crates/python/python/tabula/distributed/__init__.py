"""tabula on a Ray cluster: work spread over many processes and machines."""

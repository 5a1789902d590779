/**
 * The write-through node cache and the edge-window and count caches (Caffeine), coherent across
 * servers. Not built yet: its issue ("Write-through caching of nodes, edge windows and counts")
 * is open. Until then every read goes to MySQL.
 */
package io.quiver.cache;

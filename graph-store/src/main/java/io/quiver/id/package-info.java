/** Node IDs: 64 bits that say where a node lives, so no lookup is ever needed to find it. */
package io.quiver.id;

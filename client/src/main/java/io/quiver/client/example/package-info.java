/** Runnable examples of the Java client against a running Quiver ({@code ./quiver dev}). */
package io.quiver.client.example;

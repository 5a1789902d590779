/**
 * What every module's tests share and that needs nothing but the core: {@link
 * io.quiver.core.testing.ExpectedLog}, which catches the log lines a test provokes. Published as
 * core's test jar.
 */
package io.quiver.core.testing;

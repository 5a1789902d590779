/**
 * What every module's tests share and that needs nothing but the core: {@link
 * io.quiver.core.testing.ExpectedLog}, which catches the log lines a test provokes, and {@link
 * io.quiver.core.testing.Await}, the one way a test waits for something to happen, and {@link
 * io.quiver.core.testing.TestClock}, the clock a test moves instead of waiting. Published as
 * core's test jar.
 */
package io.quiver.core.testing;

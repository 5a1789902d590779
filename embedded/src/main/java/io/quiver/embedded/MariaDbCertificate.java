package io.quiver.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TLS certificate for the embedded hosts, made once per machine and shared by all of them.
 * Without one configured, MariaDB 11.4 makes itself a self-signed certificate at every start, and
 * its RSA key took 1 to 10 s of CPU per start (a started host is otherwise ready in about 0.35 s).
 * Turning TLS off instead would make the embedded hosts unlike the real ones, which offer it: the
 * hosts keep offering TLS, with this certificate.
 *
 * <p>Made with the JDK alone: {@code keytool} writes a self-signed key pair to a PKCS #12 store,
 * read back here and written as the PEM files MariaDB reads, once per machine beside the shared
 * binaries ({@link MachineCache}). Where it cannot be made, each host makes its own at start.
 *
 * @param cert the certificate, PEM
 * @param key its private key, PKCS #8 PEM
 */
record MariaDbCertificate(Path cert, Path key) {
  private static final Logger LOG = LoggerFactory.getLogger(MariaDbCertificate.class);
  private static final String PASSWORD = "quiver-embedded";

  /** The certificate once known; guarded by the class. */
  private static MariaDbCertificate shared;

  /** The server options that make a host use it. */
  List<String> serverOptions() {
    return List.of("--ssl-cert=" + cert, "--ssl-key=" + key);
  }

  /** The shared certificate, making it first if this machine has none yet; empty if it cannot be had. */
  static synchronized Optional<MariaDbCertificate> shared() {
    if (shared != null) {
      return Optional.of(shared);
    }
    try {
      Path dir = MachineCache.entry("tls", MariaDbCertificate::make);
      shared = new MariaDbCertificate(dir.resolve("server-cert.pem"), dir.resolve("server-key.pem"));
      return Optional.of(shared);
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot make a shared TLS certificate ({}); each host makes its own", e.toString());
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static void make(Path partial) throws IOException, InterruptedException {
    Path store = partial.resolve("store.p12");
    Path log = partial.resolve("keytool.log");
    Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-genkeypair", "-alias", "mariadb", "-keyalg", "RSA", "-keysize", "2048", "-validity", "36500",
        "-dname", "CN=quiver-embedded-mariadb", "-storetype", "PKCS12", "-keystore", store.toString(),
        "-storepass", PASSWORD, "-keypass", PASSWORD).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
      keytool.destroyForcibly();
      throw new IOException("keytool failed: " + Files.readString(log));
    }
    try (InputStream in = Files.newInputStream(store)) {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(in, PASSWORD.toCharArray());
      Files.writeString(partial.resolve("server-key.pem"),
          pem("PRIVATE KEY", keys.getKey("mariadb", PASSWORD.toCharArray()).getEncoded()));
      Files.writeString(partial.resolve("server-cert.pem"), pem("CERTIFICATE", keys.getCertificate("mariadb").getEncoded()));
    } catch (java.security.GeneralSecurityException e) {
      throw new IOException("cannot read the key keytool made", e);
    }
    Files.delete(store);
    Files.delete(log);
  }

  private static String pem(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }
}

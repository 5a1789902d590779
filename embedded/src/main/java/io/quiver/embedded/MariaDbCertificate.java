package io.quiver.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.commons.io.FileUtils;
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
 * read back here and written as the PEM files MariaDB reads. It goes beside the shared binaries
 * ({@link MariaDbBinaries}), into a directory of its own renamed into place whole, so two
 * processes starting at once never see half of one. Where it cannot be made, each host makes its
 * own at start, as before.
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

  /** The shared certificate under {@code root}, making it first if there is none; empty if it cannot be had. */
  static synchronized Optional<MariaDbCertificate> shared(Path root) {
    if (shared != null) {
      return Optional.of(shared);
    }
    Path dir = root.resolve("tls");
    MariaDbCertificate certificate = new MariaDbCertificate(dir.resolve("server-cert.pem"),
        dir.resolve("server-key.pem"));
    try {
      if (!Files.isRegularFile(certificate.key())) {
        make(dir);
      }
      shared = certificate;
      return Optional.of(certificate);
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot make a shared TLS certificate under {} ({}); each host makes its own", root, e.toString());
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static void make(Path dir) throws IOException, InterruptedException {
    Files.createDirectories(dir.getParent());
    Path partial = dir.resolveSibling(dir.getFileName() + ".making-" + UUID.randomUUID());
    try {
      Files.createDirectories(partial);
      Path store = partial.resolve("store.p12");
      Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
          "-genkeypair", "-alias", "mariadb", "-keyalg", "RSA", "-keysize", "2048", "-validity", "36500",
          "-dname", "CN=quiver-embedded-mariadb", "-storetype", "PKCS12", "-keystore", store.toString(),
          "-storepass", PASSWORD, "-keypass", PASSWORD).redirectErrorStream(true)
          .redirectOutput(partial.resolve("keytool.log").toFile()).start();
      if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
        keytool.destroyForcibly();
        throw new IOException("keytool failed: " + Files.readString(partial.resolve("keytool.log")));
      }
      KeyStore keys = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(store)) {
        keys.load(in, PASSWORD.toCharArray());
      }
      Key key = keys.getKey("mariadb", PASSWORD.toCharArray());
      Certificate cert = keys.getCertificate("mariadb");
      Files.writeString(partial.resolve("server-key.pem"), pem("PRIVATE KEY", key.getEncoded()));
      Files.writeString(partial.resolve("server-cert.pem"), pem("CERTIFICATE", cert.getEncoded()));
      Files.delete(store);
      Files.delete(partial.resolve("keytool.log"));
      try {
        Files.move(partial, dir, StandardCopyOption.ATOMIC_MOVE);
      } catch (java.nio.file.FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
        // Another process made one first: it is whole, and it is the one every host uses.
      }
    } catch (java.security.GeneralSecurityException e) {
      throw new IOException("cannot read the key keytool made", e);
    } finally {
      FileUtils.deleteQuietly(partial.toFile());
    }
  }

  private static String pem(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }
}

package dev.zklock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.zklock.testsupport.TestThreads;

/**
 * Throwaway TLS material made with the JDK's {@code keytool} at test time, once per
 * JVM, in a temporary directory deleted at exit. A test CA signs a server certificate
 * (for 127.0.0.1 and localhost) and a client certificate; the trust store holds that
 * CA, the other trust store a CA that signed neither. Every store is PKCS12 with the
 * same random password.
 */
final class TestCertificates {

	private static TestCertificates instance;

	private final Path dir;

	private final String password = "pw-" + UUID.randomUUID().toString().replace("-", "");

	private TestCertificates(Path dir) {
		this.dir = dir;
	}

	static synchronized TestCertificates get() {
		if (instance == null) {
			instance = create();
		}
		return instance;
	}

	Path serverKeyStore() {
		return this.dir.resolve("server.p12");
	}

	Path clientKeyStore() {
		return this.dir.resolve("client.p12");
	}

	Path trustStore() {
		return this.dir.resolve("trust.p12");
	}

	Path otherTrustStore() {
		return this.dir.resolve("other-trust.p12");
	}

	Path caCertificatePem() {
		return this.dir.resolve("ca.pem");
	}

	Path clientCertificateChainPem() {
		return this.dir.resolve("client-chain.pem");
	}

	String password() {
		return this.password;
	}

	private static TestCertificates create() {
		try {
			Path dir = Files.createTempDirectory("zk-lock-tls-");
			Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
			TestCertificates certificates = new TestCertificates(dir);
			certificates.generate();
			return certificates;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void generate() throws IOException {
		createCa("ca.p12", "ca.pem", "CN=zk-lock test CA");
		// independent stores, made in parallel to save JVM start-ups
		try (TestThreads threads = new TestThreads("keytool")) {
			generateInParallel(threads);
		}
	}

	private void generateInParallel(TestThreads threads) {
		CompletableFuture.allOf(run(threads, () -> createSigned("server", "CN=127.0.0.1", "san=ip:127.0.0.1,dns:localhost")),
				run(threads, () -> createSigned("client", "CN=zk-lock test client", null)),
				run(threads, () -> keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore",
						"trust.p12")),
				run(threads, () -> {
					createCa("other-ca.p12", "other-ca.pem", "CN=some other CA");
					keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "other-ca.pem", "-keystore",
							"other-trust.p12");
				}))
			.join();
	}

	private static CompletableFuture<Void> run(TestThreads threads, IoAction action) {
		return CompletableFuture.runAsync(() -> {
			try {
				action.run();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}, threads);
	}

	private void createCa(String keyStore, String certificate, String dname) throws IOException {
		keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
				"-dname", dname, "-ext", "bc:c", "-keystore", keyStore);
		keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", keyStore, "-file", certificate);
	}

	private void createSigned(String name, String dname, String extension) throws IOException {
		String keyStore = name + ".p12";
		keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
				"-dname", dname, "-keystore", keyStore);
		keytool("-certreq", "-alias", name, "-keystore", keyStore, "-file", name + ".csr");
		List<String> sign = new ArrayList<>(List.of("-gencert", "-rfc", "-alias", "ca", "-keystore", "ca.p12",
				"-validity", "2", "-infile", name + ".csr", "-outfile", name + ".pem"));
		if (extension != null) {
			sign.addAll(List.of("-ext", extension));
		}
		keytool(sign.toArray(String[]::new));
		Path chain = this.dir.resolve(name + "-chain.pem");
		Files.writeString(chain, Files.readString(this.dir.resolve(name + ".pem"), StandardCharsets.US_ASCII)
				+ Files.readString(this.dir.resolve("ca.pem"), StandardCharsets.US_ASCII), StandardCharsets.US_ASCII);
		keytool("-importcert", "-noprompt", "-alias", name, "-file", chain.getFileName().toString(), "-keystore",
				keyStore);
	}

	private void keytool(String... args) throws IOException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
		command.addAll(List.of("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"));
		command.addAll(List.of(args));
		command.addAll(List.of("-storetype", "PKCS12", "-storepass", this.password));
		Process process = new ProcessBuilder(command).directory(this.dir.toFile()).redirectErrorStream(true).start();
		try {
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("keytool " + args[0] + " failed: " + output);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			process.destroyForcibly();
			throw new IllegalStateException("Interrupted while running keytool", ex);
		}
	}

	@FunctionalInterface
	private interface IoAction {

		void run() throws IOException;

	}

	private static void delete(Path dir) {
		try (Stream<Path> paths = Files.walk(dir)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// best effort at exit
		}
	}

}

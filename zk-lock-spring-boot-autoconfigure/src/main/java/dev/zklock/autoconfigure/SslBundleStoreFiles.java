package dev.zklock.autoconfigure;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Collections;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundleKey;
import org.springframework.boot.ssl.SslStoreBundle;
import org.springframework.util.StringUtils;

/**
 * The key and trust stores of an {@link SslBundle} as PKCS12 files, in a directory
 * only the owner can read, protected by a random password and deleted on
 * {@link #close()}. Whatever the bundle's kind (JKS, PKCS12 or PEM files), Boot has
 * loaded it into {@link KeyStore}s; this writes those back out for a library that
 * only reads files.
 */
final class SslBundleStoreFiles implements AutoCloseable {

	static final String TYPE = "PKCS12";

	private final Path directory;

	private final String password;

	private volatile boolean hasKeyStore;

	private volatile boolean hasTrustStore;

	SslBundleStoreFiles() {
		this.password = randomPassword();
		try {
			this.directory = FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
					? Files.createTempDirectory("zk-lock-ssl-",
							PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")))
					: Files.createTempDirectory("zk-lock-ssl-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a directory for the SSL bundle's stores", ex);
		}
	}

	/**
	 * Write (or rewrite) the stores of a bundle. Each file is replaced atomically, so a
	 * connection being opened reads either the old or the new store.
	 * @param bundle the bundle
	 * @throws GeneralSecurityException when a store cannot be read or written
	 * @throws IOException when a file cannot be written
	 */
	void write(SslBundle bundle) throws GeneralSecurityException, IOException {
		SslStoreBundle stores = bundle.getStores();
		KeyStore keyStore = stores.getKeyStore();
		if (keyStore != null) {
			store(copyKeys(keyStore, keyPassword(bundle), bundle.getKey().getAlias()), keyStoreFile());
		}
		KeyStore trustStore = stores.getTrustStore();
		if (trustStore != null) {
			store(copyCertificates(trustStore), trustStoreFile());
		}
		this.hasKeyStore = keyStore != null;
		this.hasTrustStore = trustStore != null;
	}

	@Nullable Path keyStore() {
		return this.hasKeyStore ? keyStoreFile() : null;
	}

	@Nullable Path trustStore() {
		return this.hasTrustStore ? trustStoreFile() : null;
	}

	String password() {
		return this.password;
	}

	private Path keyStoreFile() {
		return this.directory.resolve("key.p12");
	}

	private Path trustStoreFile() {
		return this.directory.resolve("trust.p12");
	}

	private static char[] keyPassword(SslBundle bundle) {
		SslBundleKey key = bundle.getKey();
		String password = (key.getPassword() != null) ? key.getPassword() : bundle.getStores().getKeyStorePassword();
		return (password != null) ? password.toCharArray() : new char[0];
	}

	private KeyStore copyKeys(KeyStore source, char[] keyPassword, @Nullable String alias)
			throws GeneralSecurityException, IOException {
		KeyStore copy = emptyStore();
		for (String name : Collections.list(source.aliases())) {
			if (source.isKeyEntry(name) && (!StringUtils.hasText(alias) || alias.equals(name))) {
				Key key = source.getKey(name, keyPassword);
				Certificate[] chain = source.getCertificateChain(name);
				copy.setKeyEntry(name, key, this.password.toCharArray(), chain);
			}
		}
		return copy;
	}

	private static KeyStore copyCertificates(KeyStore source) throws GeneralSecurityException, IOException {
		KeyStore copy = emptyStore();
		for (String name : Collections.list(source.aliases())) {
			Certificate certificate = source.getCertificate(name);
			if (certificate != null) {
				copy.setCertificateEntry(name, certificate);
			}
		}
		return copy;
	}

	private static KeyStore emptyStore() throws GeneralSecurityException, IOException {
		KeyStore store = KeyStore.getInstance(TYPE);
		store.load(null, null);
		return store;
	}

	private void store(KeyStore store, Path file) throws GeneralSecurityException, IOException {
		Path next = Files.createTempFile(this.directory, "next-", ".p12");
		try (OutputStream out = Files.newOutputStream(next)) {
			store.store(out, this.password.toCharArray());
		}
		Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
	}

	private static String randomPassword() {
		byte[] bytes = new byte[24];
		new SecureRandom().nextBytes(bytes);
		return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
	}

	@Override
	public void close() {
		try (var files = Files.list(this.directory)) {
			for (Path file : files.toList()) {
				Files.deleteIfExists(file);
			}
			Files.deleteIfExists(this.directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not delete " + this.directory, ex);
		}
	}

}

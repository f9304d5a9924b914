package dev.zklock.autoconfigure;

import java.io.EOFException;
import java.security.UnrecoverableKeyException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.List;

import javax.net.ssl.SSLException;

import org.apache.zookeeper.common.X509Exception;

/**
 * Tells what a TLS failure that {@link ZooKeeperTlsProbe} met means for the
 * configuration: which property to check and what to change, as a
 * {@link ZooKeeperTlsException}. It reads the exceptions as the JDK and ZooKeeper
 * throw them.
 */
final class TlsProblemDiagnosis {

	private static final String TRUST_STORE = "zk-lock.tls.trust-store";

	private static final String KEY_STORE = "zk-lock.tls.key-store";

	private final String connectString;

	TlsProblemDiagnosis(String connectString) {
		this.connectString = connectString;
	}

	/**
	 * The problem of a server that answered a TLS hello with its certificate while
	 * the client does not use TLS.
	 * @param address the server, as host:port
	 * @return the problem, naming {@code zk-lock.tls.enabled}
	 */
	ZooKeeperTlsException tlsExpected(String address) {
		return new ZooKeeperTlsException(this.connectString, "zk-lock.tls.enabled",
				"the server at " + address + " expects a TLS handshake (it answered a TLS hello with its "
						+ "certificate), but 'zk-lock.tls.enabled' is false",
				"Set 'zk-lock.tls.enabled=true' and '" + TRUST_STORE + "' (with '" + TRUST_STORE + "-password') "
						+ "to a trust store holding the CA of the server's certificate, or point "
						+ "'zk-lock.connect-string' at the server's plain client port.",
				null);
	}

	/**
	 * The problem behind a key or trust store that could not be loaded.
	 * @param ex why not
	 * @return the problem, naming the store property to check
	 */
	ZooKeeperTlsException unusableStore(X509Exception.SSLContextException ex) {
		boolean trustStore = has(ex, X509Exception.TrustManagerException.class);
		String store = trustStore ? TRUST_STORE : KEY_STORE;
		String property = has(ex, UnrecoverableKeyException.class) ? store + "-password" : store;
		return new ZooKeeperTlsException(this.connectString, property,
				"TLS cannot start: the " + (trustStore ? "trust" : "key") + " store could not be loaded ("
						+ rootMessage(ex) + ")",
				"Check '" + store + "', '" + store + "-password' and '" + store + "-type': the file must be a "
						+ "readable PKCS12 or JKS store that the password opens.",
				ex);
	}

	/**
	 * The problem behind a failed handshake with one server.
	 * @param address the server, as host:port
	 * @param ex why the handshake failed
	 * @return the problem, naming the property to check
	 */
	ZooKeeperTlsException handshakeFailed(String address, SSLException ex) {
		String failed = "the TLS handshake with " + address + " failed: ";
		if (has(ex, CertPathBuilderException.class) || has(ex, CertPathValidatorException.class)) {
			return new ZooKeeperTlsException(this.connectString, TRUST_STORE,
					failed + "'" + TRUST_STORE + "' does not trust the server's certificate (" + rootMessage(ex) + ")",
					"Set '" + TRUST_STORE + "' to a trust store holding the certificate of the CA that signed the "
							+ "server's certificate (check '" + TRUST_STORE + "-password' and '" + TRUST_STORE
							+ "-type' too).",
					ex);
		}
		if (has(ex, CertificateException.class)) {
			return new ZooKeeperTlsException(this.connectString, "zk-lock.connect-string",
					failed + "the server's certificate is not issued for host '" + address + "' ("
							+ rootMessage(ex) + ")",
					"List each server in 'zk-lock.connect-string' by a host name or address that its certificate "
							+ "names (subject alternative names), or have the certificate reissued for it.",
					ex);
		}
		if (has(ex, EOFException.class)) {
			return new ZooKeeperTlsException(this.connectString, "zk-lock.connect-string",
					failed + "the server closed the connection without answering, as a plain client port does ("
							+ rootMessage(ex) + ")",
					"Point 'zk-lock.connect-string' at the server's secure client port (secureClientPort), or set "
							+ "'zk-lock.tls.enabled=false' if the server does not use TLS.",
					ex);
		}
		if (isClientCertificateAlert(ex)) {
			return new ZooKeeperTlsException(this.connectString, KEY_STORE,
					failed + "the server rejected the client certificate (" + rootMessage(ex) + ")",
					"Set '" + KEY_STORE + "' (with '" + KEY_STORE + "-password') to a key store holding a client "
							+ "certificate that the server trusts: ZooKeeper asks for one unless the server sets "
							+ "ssl.clientAuth=none.",
					ex);
		}
		return new ZooKeeperTlsException(this.connectString, TRUST_STORE, failed + rootMessage(ex),
				"Check that the port is the server's secure client port, that '" + TRUST_STORE + "' trusts the "
						+ "server's certificate and that '" + KEY_STORE + "' holds a certificate the server trusts.",
				ex);
	}

	private static boolean isClientCertificateAlert(SSLException ex) {
		String message = String.valueOf(ex.getMessage());
		return List.of("bad_certificate", "certificate_required", "certificate_unknown", "unknown_ca",
				"access_denied", "unsupported_certificate", "certificate_expired", "certificate_revoked")
			.stream()
			.anyMatch(message::contains);
	}

	private static boolean has(Throwable ex, Class<? extends Throwable> type) {
		for (Throwable current = ex; current != null; current = current.getCause()) {
			if (type.isInstance(current)) {
				return true;
			}
		}
		return false;
	}

	private static String rootMessage(Throwable ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return (root.getMessage() != null) ? root.getMessage() : root.getClass().getSimpleName();
	}

}

package dev.zklock.autoconfigure;

import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.time.Duration;

import javax.net.ssl.SSLHandshakeException;

import org.junit.jupiter.api.Test;

import dev.zklock.testsupport.FreePorts;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for how {@link ZooKeeperTlsProbe} names the property behind a failed TLS
 * handshake (the exceptions are built as the JDK throws them), and for the probe of
 * servers that are not there. {@link ZkLockTlsTests} covers real handshakes.
 */
class ZooKeeperTlsProbeTests {

	private final ZooKeeperTlsProbe probe = new ZooKeeperTlsProbe("zk1:2281", null);

	@Test
	void untrustedServerCertificateNamesTheTrustStore() {
		SSLHandshakeException ex = handshake("PKIX path building failed",
				new CertificateException("PKIX path building failed",
						new CertPathBuilderException("unable to find valid certification path")));
		ZooKeeperTlsException problem = this.probe.handshakeFailed("zk1:2281", ex);
		assertThat(problem.getProperty()).isEqualTo("zk-lock.tls.trust-store");
		assertThat(problem.getReason()).isEqualTo("the TLS handshake with zk1:2281 failed: 'zk-lock.tls.trust-store' "
				+ "does not trust the server's certificate (unable to find valid certification path)");
		assertThat(problem).hasCause(ex);
	}

	@Test
	void certificateForAnotherHostNamesTheConnectString() {
		SSLHandshakeException ex = handshake("No subject alternative DNS name matching zk1 found.",
				new CertificateException("No subject alternative DNS name matching zk1 found."));
		ZooKeeperTlsException problem = this.probe.handshakeFailed("zk1:2281", ex);
		assertThat(problem.getProperty()).isEqualTo("zk-lock.connect-string");
		assertThat(problem.getReason()).contains("the server's certificate is not issued for host 'zk1:2281'");
	}

	@Test
	void rejectedClientCertificateNamesTheKeyStore() {
		for (String alert : new String[] { "bad_certificate", "certificate_required", "unknown_ca" }) {
			ZooKeeperTlsException problem = this.probe.handshakeFailed("zk1:2281",
					new SSLHandshakeException("Received fatal alert: " + alert));
			assertThat(problem.getProperty()).as(alert).isEqualTo("zk-lock.tls.key-store");
			assertThat(problem.getReason()).as(alert).contains("the server rejected the client certificate");
		}
	}

	@Test
	void otherHandshakeFailuresNameTheTrustStoreAndKeyStore() {
		ZooKeeperTlsException problem = this.probe.handshakeFailed("zk1:2281",
				new SSLHandshakeException("No appropriate protocol (protocol is disabled or cipher suites are "
						+ "inappropriate)"));
		assertThat(problem.getReason()).isEqualTo("the TLS handshake with zk1:2281 failed: No appropriate protocol "
				+ "(protocol is disabled or cipher suites are inappropriate)");
		assertThat(problem.getAction()).contains("'zk-lock.tls.trust-store'").contains("'zk-lock.tls.key-store'");
	}

	@Test
	void serversThatAreNotListeningProveNothing() {
		int port = FreePorts.next();
		assertThat(new ZooKeeperTlsProbe("127.0.0.1:" + port, null).probe(Duration.ofSeconds(2))).isNull();
	}

	private static SSLHandshakeException handshake(String message, Throwable cause) {
		SSLHandshakeException ex = new SSLHandshakeException(message);
		ex.initCause(cause);
		return ex;
	}

}

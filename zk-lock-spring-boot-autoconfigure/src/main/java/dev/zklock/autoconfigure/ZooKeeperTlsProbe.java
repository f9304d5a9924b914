package dev.zklock.autoconfigure;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.SSLContextAndOptions;
import org.apache.zookeeper.common.X509Exception;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out whether TLS is why the client has not connected yet, from the client's own
 * {@link ZKClientConfig}, whether zk-lock's properties, a customizer or system
 * properties made it. With TLS on, it loads the key and trust stores and makes one
 * TLS handshake with each server of the connection string. With TLS off, it checks
 * whether the servers answer a TLS hello with a certificate. A server that is down or
 * slow proves nothing; one that accepts the probe clears TLS.
 */
final class ZooKeeperTlsProbe {

	private static final Logger logger = LoggerFactory.getLogger(ZooKeeperTlsProbe.class);

	/**
	 * With TLS 1.3 the server judges the client certificate after the client has
	 * finished its handshake; this is how long the probe waits for that verdict.
	 */
	private static final long VERDICT_WAIT_MILLIS = 500;

	private final String connectString;

	private final ZKClientConfig clientConfig;

	private final TlsProblemDiagnosis problems;

	/**
	 * Create a probe.
	 * @param connectString the servers to probe
	 * @param clientConfig the client's configuration, or {@code null} for ZooKeeper's
	 * default one (from system properties)
	 */
	ZooKeeperTlsProbe(String connectString, @Nullable ZKClientConfig clientConfig) {
		this.connectString = connectString;
		this.clientConfig = (clientConfig != null) ? clientConfig : new ZKClientConfig();
		this.problems = new TlsProblemDiagnosis(connectString);
	}

	/**
	 * Probe the servers.
	 * @param timeout longest time the probe takes
	 * @return the TLS problem found, or {@code null} when TLS is not the cause or the
	 * servers could not be reached
	 */
	@Nullable ZooKeeperTlsException probe(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		List<InetSocketAddress> servers = new ConnectStringParser(this.connectString).getServerAddresses();
		boolean secure = this.clientConfig.getBoolean(ZKClientConfig.SECURE_CLIENT);
		ZooKeeperTlsException problem = secure ? probeTls(servers, deadline) : probePlain(servers, deadline);
		return SslBundleTlsProblems.forClient(problem, this.clientConfig);
	}

	private @Nullable ZooKeeperTlsException probeTls(List<InetSocketAddress> servers, long deadline) {
		try (ClientX509Util x509 = new ClientX509Util()) {
			boolean verifyHostname = x509.isServerHostnameVerificationEnabled(this.clientConfig);
			SSLContextAndOptions context;
			try {
				context = x509.createSSLContextAndOptions(this.clientConfig);
			}
			catch (X509Exception.SSLContextException ex) {
				return this.problems.unusableStore(ex);
			}
			ZooKeeperTlsException problem = null;
			for (InetSocketAddress server : servers) {
				String address = server.getHostString() + ":" + server.getPort();
				boolean handshaken = false;
				try (SSLSocket socket = context.createSSLSocket()) {
					if (verifyHostname) {
						// as the client does: ZooKeeper's own check is off in FIPS mode
						SSLParameters parameters = socket.getSSLParameters();
						parameters.setEndpointIdentificationAlgorithm("HTTPS");
						socket.setSSLParameters(parameters);
					}
					if (!connect(socket, server, deadline)) {
						continue;
					}
					socket.startHandshake();
					handshaken = true;
					socket.setSoTimeout((int) Math.max(1, Math.min(VERDICT_WAIT_MILLIS, remainingMillis(deadline))));
					if (socket.getInputStream().read() != -1) {
						return null;
					}
				}
				catch (SocketTimeoutException ex) {
					if (handshaken) {
						// no alert after the handshake: the server accepts this client
						return null;
					}
				}
				catch (SSLException ex) {
					logger.debug("TLS handshake with {} failed", address, ex);
					problem = (problem != null) ? problem : handshakeFailed(address, ex);
				}
				catch (IOException ex) {
					logger.debug("Could not probe {} over TLS", address, ex);
				}
			}
			return problem;
		}
	}

	private @Nullable ZooKeeperTlsException probePlain(List<InetSocketAddress> servers, long deadline) {
		ZooKeeperTlsException problem = null;
		for (InetSocketAddress server : servers) {
			String address = server.getHostString() + ":" + server.getPort();
			CertificateRecorder recorder = new CertificateRecorder();
			boolean connected = false;
			try (SSLSocket socket = recorder.createSocket()) {
				connected = connect(socket, server, deadline);
				if (connected) {
					socket.startHandshake();
				}
			}
			catch (IOException ex) {
				logger.debug("TLS hello to {} failed, as expected of a plain port", address, ex);
			}
			if (!connected) {
				continue;
			}
			if (!recorder.sawCertificate) {
				return null;
			}
			problem = (problem != null) ? problem : this.problems.tlsExpected(address);
		}
		return problem;
	}

	private boolean connect(SSLSocket socket, InetSocketAddress server, long deadline) throws IOException {
		long remaining = remainingMillis(deadline);
		if (remaining <= 0) {
			return false;
		}
		InetSocketAddress resolved = new InetSocketAddress(server.getHostString(), server.getPort());
		if (resolved.isUnresolved()) {
			return false;
		}
		try {
			socket.connect(resolved, (int) Math.min(remaining, Integer.MAX_VALUE));
		}
		catch (IOException ex) {
			logger.debug("Could not reach {} to probe TLS", resolved, ex);
			return false;
		}
		socket.setSoTimeout((int) Math.max(1, Math.min(remainingMillis(deadline), Integer.MAX_VALUE)));
		return true;
	}

	/**
	 * The problem behind a failed handshake with one server.
	 * @param address the server, as host:port
	 * @param ex why the handshake failed
	 * @return the problem, naming the property to check
	 */
	ZooKeeperTlsException handshakeFailed(String address, SSLException ex) {
		return this.problems.handshakeFailed(address, ex);
	}

	private static long remainingMillis(long deadline) {
		return TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
	}

	/**
	 * Trusts no server: notes that one presented a certificate, then fails the
	 * handshake.
	 */
	private static final class CertificateRecorder implements X509TrustManager {

		private volatile boolean sawCertificate;

		SSLSocket createSocket() throws IOException {
			try {
				SSLContext context = SSLContext.getInstance("TLS");
				context.init(null, new TrustManager[] { this }, null);
				return (SSLSocket) context.getSocketFactory().createSocket();
			}
			catch (GeneralSecurityException ex) {
				throw new IOException("No TLS support in this JVM", ex);
			}
		}

		@Override
		public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
			this.sawCertificate = true;
			throw new CertificateException("zk-lock only checks whether the server speaks TLS");
		}

		@Override
		public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
			throw new CertificateException("not a server");
		}

		@Override
		public X509Certificate[] getAcceptedIssuers() {
			return new X509Certificate[0];
		}

	}

}

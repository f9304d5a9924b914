package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeoutException;

import org.apache.zookeeper.KeeperException;

/**
 * What a lock failure message advises, by ZooKeeper's result code: a connection
 * problem points at the connection, and a refusal by the server (an ACL, a quota,
 * the shape of the tree) or by the client is named as what it is.
 */
final class FailureAdvice {

	// the result codes of a connection problem: running the call again once connected may succeed
	private static final Set<KeeperException.Code> CONNECTION_CODES = EnumSet.of(KeeperException.Code.CONNECTIONLOSS,
			KeeperException.Code.SESSIONEXPIRED, KeeperException.Code.OPERATIONTIMEOUT,
			KeeperException.Code.SESSIONMOVED, KeeperException.Code.NOTREADONLY, KeeperException.Code.SYSTEMERROR,
			KeeperException.Code.REQUESTTIMEOUT, KeeperException.Code.THROTTLEDOP);

	private FailureAdvice() {
	}

	/**
	 * Whether a failure is a problem of the connection, by the first
	 * {@link KeeperException} among its causes, else by an I/O error or timeout
	 * among them, as {@link #forFailure} tells it.
	 * @param failure the failure
	 * @return whether it is
	 */
	static boolean isConnectionProblem(Throwable failure) {
		boolean connection = false;
		for (Throwable current = failure; current != null; current = current.getCause()) {
			if (current instanceof KeeperException keeperException) {
				return CONNECTION_CODES.contains(keeperException.code());
			}
			connection |= current instanceof IOException || current instanceof TimeoutException;
		}
		return connection;
	}

	/**
	 * The advice for a failure, by the first {@link KeeperException} among its
	 * causes; a failure of the connection itself (an I/O error, a timeout) points at
	 * the connection, and any other failure, such as a request the client refused
	 * (Curator's schema checks), is named as not being about the connection.
	 * @param failure the failure
	 * @param basePath the base path of the locks
	 * @return one sentence, starting in lower case
	 */
	static String forFailure(Throwable failure, String basePath) {
		for (Throwable current = failure; current != null; current = current.getCause()) {
			if (current instanceof KeeperException keeperException) {
				return forCode(keeperException.code(), keeperException.getPath(), basePath);
			}
		}
		if (isConnectionProblem(failure)) {
			return forCode(null, null, basePath);
		}
		return "the request failed in the client before ZooKeeper answered (" + failure.getClass().getSimpleName()
				+ "); this is not a connection problem, so see the cause for what was refused";
	}

	/**
	 * The advice for a failure.
	 * @param code ZooKeeper's result code, or {@code null} when the failure came from
	 * elsewhere (such as the client itself)
	 * @param path the node ZooKeeper names, or {@code null}
	 * @param basePath the base path of the locks
	 * @return one sentence, starting in lower case
	 */
	static String forCode(KeeperException.@Nullable Code code, @Nullable String path, String basePath) {
		String node = (path != null) ? path : "a node under " + basePath;
		if (code == null) {
			return "check the ZooKeeper connection (zk-lock.connect-string)";
		}
		if (CONNECTION_CODES.contains(code)) {
			return "a connection problem (" + code + "): check the ZooKeeper connection (zk-lock.connect-string) and "
					+ "the servers' health";
		}
		return switch (code) {
			case NOAUTH -> "ZooKeeper refused access to " + node + " (NoAuth): an ACL of another identity protects "
					+ "it, so set zk-lock.auth.scheme and zk-lock.auth.credentials to the credentials of the "
					+ "applications that share these locks, or use a zk-lock.base-path of your own";
			case AUTHFAILED -> "ZooKeeper rejected the client's credentials (AuthFailed): check zk-lock.auth.scheme and "
					+ "zk-lock.auth.credentials";
			case INVALIDACL -> "ZooKeeper refused the ACL of " + node + " (InvalidACL): check the ACL provider and "
					+ "zk-lock.auth.* (the creator-all ACL needs authenticated credentials)";
			case NOCHILDRENFOREPHEMERALS -> "ZooKeeper refused to create a node under " + node
					+ " (NoChildrenForEphemerals): a node on the lock path is ephemeral, so set zk-lock.base-path to "
					+ "a path whose nodes are persistent";
			case QUOTAEXCEEDED -> "a ZooKeeper quota on " + node + " is exceeded (QuotaExceeded): raise the quota with "
					+ "setquota, or use another zk-lock.base-path";
			case BADARGUMENTS, UNIMPLEMENTED -> "ZooKeeper refused the request (" + code + "): the server may be older "
					+ "than zk-lock supports (3.5 or newer is needed) or reject the path " + node;
			default -> "ZooKeeper refused the request on " + node + " (" + code + "); this is not a connection "
					+ "problem, so check what the server says about the path";
		};
	}

}

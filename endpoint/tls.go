package endpoint

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"
)

// certValidity is how long a generated certificate lasts. Renters trust
// it by its pin on chain, not by a CA or its dates; a new certificate
// means a new pin (idlegpud tx provider update-provider).
const certValidity = 10 * 365 * 24 * time.Hour

// GenerateSelfSigned writes a new ECDSA P-256 key and a self-signed
// certificate for hosts (DNS names or IPs) and returns the certificate's
// pin: the hex sha256 of its DER, what the provider registers as
// tls_cert_sha256. The key file is created 0600 and never overwritten.
func GenerateSelfSigned(certPath, keyPath string, hosts []string, now time.Time) (string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return "", err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "idlegpu-agent endpoint"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", err
	}
	kf, err := os.OpenFile(keyPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("endpoint key: %w", err)
	}
	if err := errors.Join(pem.Encode(kf, &pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), kf.Close()); err != nil {
		return "", err
	}
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return "", err
	}
	return Pin(der), nil
}

// Pin is a certificate's pin: the hex sha256 of its DER.
func Pin(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// CertPin reads a PEM certificate file and returns the pin of its first
// certificate (the leaf the endpoint presents).
func CertPin(certPath string) (string, error) {
	b, err := os.ReadFile(certPath)
	if err != nil {
		return "", err
	}
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "CERTIFICATE" {
		return "", fmt.Errorf("%s: no PEM certificate", certPath)
	}
	return Pin(block.Bytes), nil
}
